// CUDA permute: one thread per output element, its input offset decoded from the output index
// through the record (passed by value, so it sits in constant parameter memory). The decode
// walks the axes with constant indices (unrolled to the largest rank, axes past the rank
// skipped): an index known only at run time would copy the geometry to a local stack frame.
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/ops/permute_record.h"

namespace kiln::cuda {

namespace {

__global__ void permute_kernel(rec::Permute g) {
  for (Index e = detail::grid_start(); e < g.count; e += detail::grid_stride()) {
    Index offset = 0, rest = e;
#pragma unroll
    for (int a = rec::kMaxPermuteRank - 1; a >= 0; --a) {
      if (a >= g.rank) continue;
      offset += (rest % g.size[a]) * g.stride[a];
      rest /= g.size[a];
    }
    g.y[e] = g.x[offset];
  }
}

}  // namespace

void permute(const rec::Permute& o, cudaStream_t stream) {
  if (o.count == 0) return;
  permute_kernel<<<detail::blocks_for(o.count), detail::kThreads, 0, stream>>>(o);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
