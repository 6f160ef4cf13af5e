// fp32 <-> bf16 copies on the GPU, for the libraries that take bf16 operands only (cuDNN's fused
// attention): round to nearest even, NaN and infinities kept. Plain declarations, no fmt.
#pragma once

#include <cstdint>

typedef struct CUstream_st* cudaStream_t;

namespace kiln::cuda {

// out[i] = x[i] rounded to bf16, for n elements (out holds n 2-byte values); queued on `stream`.
void round_to_bf16(const float* x, void* out, std::int64_t n, cudaStream_t stream);
// out[i] = x[i] (n bf16 values) widened to fp32, exactly.
void widen_from_bf16(const void* x, float* out, std::int64_t n, cudaStream_t stream);

}  // namespace kiln::cuda
