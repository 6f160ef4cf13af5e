// CUDA random fills: element i is a function of Philox at (seed, offset + i) only
// (kiln/core/philox.h, shared with the host), computed with the same float32 expressions as
// core/cpu/random.cpp: uniform agrees with the CPU bit for bit, normal to the few ulps by which
// the devices' logf/cosf differ. Built without nvcc's fast math (use_fast_math); change a
// formula only in both.
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/ops/random_record.h"
#include "kiln/core/philox.h"

namespace kiln::cuda {

namespace {

constexpr float kTwoPi = 6.28318530717958648f;
constexpr float kTwoToMinus24 = 1.0f / 16777216.0f;

// x_i = low + (high - low) * u as an explicit fma, as on the CPU, so that contraction choices of
// either compiler cannot change the last bit.
__global__ void uniform_kernel(Index n, std::uint64_t seed, std::uint64_t offset, float low,
                               float width, float* x) {
  for (Index i = detail::grid_start(); i < n; i += detail::grid_stride()) {
    const philox::Uint4 word = philox::draw(seed, offset + static_cast<std::uint64_t>(i));
    x[i] = fmaf(width, philox::to_unit(word.x), low);
  }
}

// Box-Muller on two words of one draw: u1 in (0, 1] so log(u1) is finite, u2 in [0, 1).
// __fmul_rn keeps -2 log(u1) and 2 pi u2 as separate roundings (no fma), as the CPU has them.
__global__ void normal_kernel(Index n, std::uint64_t seed, std::uint64_t offset, float mean,
                              float stddev, float* x) {
  for (Index i = detail::grid_start(); i < n; i += detail::grid_stride()) {
    const philox::Uint4 word = philox::draw(seed, offset + static_cast<std::uint64_t>(i));
    const float u1 = (static_cast<float>(word.x >> 8) + 1.0f) * kTwoToMinus24;
    const float u2 = philox::to_unit(word.y);
    const float radius = sqrtf(__fmul_rn(-2.0f, logf(u1)));
    const float z = __fmul_rn(radius, cosf(__fmul_rn(kTwoPi, u2)));
    x[i] = fmaf(stddev, z, mean);
  }
}

}  // namespace

void uniform(const rec::Uniform& o, cudaStream_t stream) {
  const Index n = o.n;
  const std::uint64_t seed = o.seed, offset = o.offset;
  const float low = o.low, high = o.high;
  float* x = o.x;
  if (n == 0) return;
  // high - low rounded once on the host, exactly as the CPU's `width`.
  uniform_kernel<<<detail::blocks_for(n), detail::kThreads, 0, stream>>>(n, seed, offset, low,
                                                                         high - low, x);
  KILN_CUDA_CHECK_LAUNCH();
}

void normal(const rec::Normal& o, cudaStream_t stream) {
  const Index n = o.n;
  const std::uint64_t seed = o.seed, offset = o.offset;
  const float mean = o.mean, stddev = o.stddev;
  float* x = o.x;
  if (n == 0) return;
  normal_kernel<<<detail::blocks_for(n), detail::kThreads, 0, stream>>>(n, seed, offset, mean,
                                                                        stddev, x);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
