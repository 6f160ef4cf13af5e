// The embedding ops' records, filled by check() (core/ops/embedding.cpp) and taken by the CPU
// bodies (core/cpu/embedding.cpp) and the CUDA launches (core/cuda/embedding.cu): ids (count),
// int32 when ids_i32 else float32 holding integers; weight, dweight (num, dim); y, dy (count, dim).
#pragma once

#include "kiln/core/op_record.h"

namespace kiln::rec {

struct EmbeddingForward {
  Index count, num, dim;
  const void* ids;
  bool ids_i32;
  const float* weight;
  float* y;  // "="
};

struct EmbeddingBackward {
  Index count, num, dim;
  const void* ids;
  bool ids_i32;
  const float* dy;
  float* dweight;  // "+=", in the order of the ids
};

}  // namespace kiln::rec

namespace kiln::cuda {
// Queued on `stream`, checked, never synchronising the host. An invalid id (not an integer in
// [0, num)) gives a row of NaN in the forward and adds nothing in the backward.
void embedding_forward(const rec::EmbeddingForward& o, cudaStream_t stream);
void embedding_backward(const rec::EmbeddingBackward& o, cudaStream_t stream);
}  // namespace kiln::cuda
