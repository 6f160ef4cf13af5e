// The launches of core/cuda/embedding.cu on raw device pointers, queued on `stream`; checked,
// never synchronising the host. core/cuda/embedding.cpp registers them. ids: (count), int32 when
// ids_i32 else float32; weight, dweight: (num, dim); y, dy: (count, dim).
#pragma once

#include "kiln/core/cuda/backend.h"

namespace kiln::cuda {

// y "=": an invalid id (not an integer in [0, num)) gives a row of NaN.
void embedding_forward(Index count, Index num, Index dim, const void* ids, bool ids_i32,
                       const float* weight, float* y, cudaStream_t stream);
// dweight "+=", in the order of the ids (an invalid id adds nothing).
void embedding_backward(Index count, Index num, Index dim, const void* ids, bool ids_i32,
                        const float* dy, float* dweight, cudaStream_t stream);

}  // namespace kiln::cuda
