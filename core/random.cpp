// Random initialisers: the Kaiming/Xavier scalings computed from the weight's fans as PyTorch
// does, over uniform_ and normal_ (the op table's random fills, core/ops/random.h).
#include "kiln/core/random.h"

#include <cmath>

namespace kiln {

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

void xavier_normal_(Tensor& w, Generator& gen, float gain) {
  normal_(w, 0.0f, xavier_std(w, gain), gen);
}

}  // namespace kiln
