// CUDA permute: one thread per output element, its input offset decoded from the output index
// through the geometry (passed by value, so it sits in constant parameter memory). The decode
// walks the axes with constant indices (unrolled to the largest rank, axes past the rank
// skipped): an index known only at run time would copy the geometry to a local stack frame.
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/cuda/permute.h"

namespace kiln::cuda {

namespace {

constexpr int kMaxRank = sizeof(PermuteGeometry::size) / sizeof(PermuteGeometry::size[0]);

__global__ void permute_kernel(PermuteGeometry g, Index count, const float* x, float* y) {
  for (Index e = detail::grid_start(); e < count; e += detail::grid_stride()) {
    Index offset = 0, rest = e;
#pragma unroll
    for (int a = kMaxRank - 1; a >= 0; --a) {
      if (a >= g.rank) continue;
      offset += (rest % g.size[a]) * g.stride[a];
      rest /= g.size[a];
    }
    y[e] = x[offset];
  }
}

}  // namespace

void permute(const PermuteGeometry& g, Index count, const float* x, float* y, cudaStream_t stream) {
  if (count == 0) return;
  permute_kernel<<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(g, count, x, y);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
