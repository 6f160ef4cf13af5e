// CUDA embedding. Forward: one thread per output element. Backward: deterministic without
// atomics or a sort: one thread per column adds the rows of dy in the order of the ids, the
// CPU reference's order (core/cpu/embedding.cpp), so both give the same bits. Parallel over the
// embedding width only, which is enough for token tables (width >= 64) next to the GEMMs around.
#include <cmath>

#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/embedding.h"
#include "kiln/core/cuda/launch.cuh"

namespace kiln::cuda {

namespace {

using detail::kThreads;

// The row of id i, or -1 when it is not an integer in [0, num).
__device__ __forceinline__ Index row_of(const void* ids, bool ids_i32, Index i, Index num) {
  if (ids_i32) {
    const int v = static_cast<const int*>(ids)[i];
    return v >= 0 && v < num ? v : -1;
  }
  const float v = static_cast<const float*>(ids)[i];
  return v >= 0.0f && v < static_cast<float>(num) && v == floorf(v) ? static_cast<Index>(v) : -1;
}

__global__ void forward_kernel(Index count, Index num, Index dim, const void* ids, bool ids_i32,
                               const float* weight, float* y) {
  for (Index e = detail::grid_start(); e < count * dim; e += detail::grid_stride()) {
    const Index i = e / dim, c = e % dim;
    const Index row = row_of(ids, ids_i32, i, num);
    y[e] = row >= 0 ? weight[row * dim + c] : nanf("");
  }
}

__global__ void backward_kernel(Index count, Index num, Index dim, const void* ids, bool ids_i32,
                                const float* dy, float* dweight) {
  for (Index c = detail::grid_start(); c < dim; c += detail::grid_stride())
    for (Index i = 0; i < count; ++i) {
      const Index row = row_of(ids, ids_i32, i, num);
      if (row >= 0) dweight[row * dim + c] += dy[i * dim + c];
    }
}

}  // namespace

void embedding_forward(Index count, Index num, Index dim, const void* ids, bool ids_i32,
                       const float* weight, float* y, cudaStream_t stream) {
  if (count * dim == 0) return;
  forward_kernel<<<detail::blocks_for(count * dim), kThreads, 0, stream>>>(count, num, dim, ids,
                                                                           ids_i32, weight, y);
  KILN_CUDA_CHECK_LAUNCH();
}

void embedding_backward(Index count, Index num, Index dim, const void* ids, bool ids_i32,
                        const float* dy, float* dweight, cudaStream_t stream) {
  if (count * dim == 0) return;
  backward_kernel<<<detail::blocks_for(dim), kThreads, 0, stream>>>(count, num, dim, ids, ids_i32,
                                                                    dy, dweight);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
