// CPU random fills: element i is a function of Philox at (seed, offset + i) only, so results do
// not depend on thread count, and core/cuda/random.cu computes the identical float32 expressions
// from the same words: uniform draws agree bit for bit with the GPU, normal draws to the few ulps
// by which the devices' logf/cosf/sqrtf differ. Change a formula here only together with there.
#include <cmath>
#include <cstdint>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/ops/random.h"
#include "kiln/core/philox.h"

namespace kiln::cpu {

namespace {
constexpr float kTwoPi = 6.28318530717958648f;
constexpr float kTwoToMinus24 = 1.0f / 16777216.0f;
}  // namespace

// x_i = low + (high - low) * u, u = to_unit(word.x) in [0, 1). Written as an explicit fma so
// that neither compiler's choice to contract (or not) can change the last bit.
void uniform(const rec::Uniform& o) {
  const Index n = o.n;
  const std::uint64_t seed = o.seed, offset = o.offset;
  const float low = o.low, high = o.high;
  float* x = o.x;
  const float width = high - low;
#pragma omp parallel for if (n > kParallelMin) schedule(static)
  for (Index i = 0; i < n; ++i) {
    const philox::Uint4 word = philox::draw(seed, offset + static_cast<std::uint64_t>(i));
    x[i] = std::fma(width, philox::to_unit(word.x), low);
  }
}

// Box-Muller on two words of one draw: u1 = (top 24 bits of x + 1) * 2^-24 lies in (0, 1], so
// log(u1) is finite; u2 = to_unit(word.y) in [0, 1); z = sqrt(-2 log u1) cos(2 pi u2);
// x_i = mean + stddev * z (again an explicit fma). All in float32, as on the GPU.
void normal(const rec::Normal& o) {
  const Index n = o.n;
  const std::uint64_t seed = o.seed, offset = o.offset;
  const float mean = o.mean, stddev = o.stddev;
  float* x = o.x;
#pragma omp parallel for if (n > kParallelMin) schedule(static)
  for (Index i = 0; i < n; ++i) {
    const philox::Uint4 word = philox::draw(seed, offset + static_cast<std::uint64_t>(i));
    const float u1 = (static_cast<float>(word.x >> 8) + 1.0f) * kTwoToMinus24;
    const float u2 = philox::to_unit(word.y);
    const float radius = std::sqrt(-2.0f * std::log(u1));
    const float z = radius * std::cos(kTwoPi * u2);
    x[i] = std::fma(stddev, z, mean);
  }
}

namespace {

const RegisterKernel<op::Uniform> kUniform(Backend::reference, on_record<uniform>, "fp32", "kiln");
const RegisterKernel<op::Normal> kNormal(Backend::reference, on_record<normal>, "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
