// Random initialisers: uniform and normal draws dispatched by device, and the Kaiming/Xavier
// scalings computed from the weight's fans as PyTorch does.
#include "kiln/core/random.h"

#include <cmath>

#include "kiln/core/cpu/kernels.h"
#include "kiln/core/cuda/kernels.h"
#include "kiln/core/dispatch.h"

namespace kiln {

void uniform_(Tensor& x, float low, float high, Generator& gen) {
  constexpr const char* op = "uniform_";
  detail::check_operands(op, {{"x", &x}}, DType::f32);
  KILN_CHECK(low <= high, "uniform_: low {} is above high {}", low, high);
  const std::uint64_t offset = gen.advance(static_cast<std::uint64_t>(x.numel()));
  if (x.device().is_cpu()) return cpu::uniform(x.numel(), gen.seed(), offset, low, high, x.data<float>());
  KILN_ON_CUDA(op, cuda::uniform(x.numel(), gen.seed(), offset, low, high, x.data<float>(),
                                 detail::prepare_cuda(x.device())));
}

void normal_(Tensor& x, float mean, float stddev, Generator& gen) {
  constexpr const char* op = "normal_";
  detail::check_operands(op, {{"x", &x}}, DType::f32);
  KILN_CHECK(stddev >= 0.0f, "normal_: the standard deviation must be >= 0, found {}", stddev);
  const std::uint64_t offset = gen.advance(static_cast<std::uint64_t>(x.numel()));
  if (x.device().is_cpu())
    return cpu::normal(x.numel(), gen.seed(), offset, mean, stddev, x.data<float>());
  KILN_ON_CUDA(op, cuda::normal(x.numel(), gen.seed(), offset, mean, stddev, x.data<float>(),
                                detail::prepare_cuda(x.device())));
}

Fans compute_fans(const Shape& s) {
  KILN_CHECK(s.rank() >= 2, "fan in and fan out need a weight of rank >= 2, found {}", s.str());
  const std::int64_t receptive = s.product(2, s.rank());
  return Fans{s[1] * receptive, s[0] * receptive};
}

namespace {
float kaiming_std(const Tensor& w, float a, FanMode mode) {
  const Fans fans = compute_fans(w.shape());
  const auto fan = static_cast<float>(mode == FanMode::fan_in ? fans.in : fans.out);
  KILN_CHECK(fan > 0, "kaiming init of an empty weight {}", w.shape().str());
  const float gain = std::sqrt(2.0f / (1.0f + a * a));
  return gain / std::sqrt(fan);
}
float xavier_std(const Tensor& w, float gain) {
  const Fans fans = compute_fans(w.shape());
  KILN_CHECK(fans.in + fans.out > 0, "xavier init of an empty weight {}", w.shape().str());
  return gain * std::sqrt(2.0f / static_cast<float>(fans.in + fans.out));
}
}  // namespace

// A uniform distribution on [-b, b] has standard deviation b / sqrt(3).
void kaiming_uniform_(Tensor& w, Generator& gen, float a, FanMode mode) {
  const float bound = std::sqrt(3.0f) * kaiming_std(w, a, mode);
  uniform_(w, -bound, bound, gen);
}

void kaiming_normal_(Tensor& w, Generator& gen, float a, FanMode mode) {
  normal_(w, 0.0f, kaiming_std(w, a, mode), gen);
}

void xavier_uniform_(Tensor& w, Generator& gen, float gain) {
  const float bound = std::sqrt(3.0f) * xavier_std(w, gain);
  uniform_(w, -bound, bound, gen);
}

void xavier_normal_(Tensor& w, Generator& gen, float gain) { normal_(w, 0.0f, xavier_std(w, gain), gen); }

}  // namespace kiln
