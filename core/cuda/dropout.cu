// CUDA dropout: element i is kept when the top 24 bits of Philox word x at (seed, offset + i),
// as a float in [0, 1), are >= p: the expressions of core/cpu/dropout.cpp, so both devices draw
// the same mask bit for bit (the compare and the one multiply leave no room for rounding).
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/ops/dropout_record.h"
#include "kiln/core/philox.h"

namespace kiln::cuda {

namespace {

__global__ void dropout_kernel(Index n, std::uint64_t seed, std::uint64_t offset, float p,
                               float scale, const float* x, float* y, float* mask) {
  for (Index i = detail::grid_start(); i < n; i += detail::grid_stride()) {
    const philox::Uint4 word = philox::draw(seed, offset + static_cast<std::uint64_t>(i));
    const float m = philox::to_unit(word.x) >= p ? scale : 0.0f;
    mask[i] = m;
    y[i] = x[i] * m;
  }
}

}  // namespace

void dropout_forward(const rec::DropoutForward& o, cudaStream_t stream) {
  const Index n = o.n;
  const std::uint64_t seed = o.seed, offset = o.offset;
  const float p = o.p, scale = o.scale;
  const float* x = o.x;
  float *y = o.y, *mask = o.mask;
  if (n == 0) return;
  dropout_kernel<<<detail::blocks_for(n), detail::kThreads, 0, stream>>>(n, seed, offset, p, scale,
                                                                         x, y, mask);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
