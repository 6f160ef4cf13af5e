#include "tests/support/gradient_check.h"

#include <cmath>
#include <numeric>
#include <random>
#include <sstream>

#include "kiln/core/ops.h"
#include "tests/support/tensor_testing.h"

namespace kiln::testing {

namespace {
// Up to `count` distinct element indices of a tensor of `n` elements, chosen at random.
std::vector<std::int64_t> sample_indices(std::int64_t n, int count, std::uint32_t seed) {
  std::vector<std::int64_t> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  if (n <= count) return all;
  std::mt19937 engine(seed);
  std::shuffle(all.begin(), all.end(), engine);
  all.resize(static_cast<std::size_t>(count));
  return all;
}
}  // namespace

::testing::AssertionResult gradient_matches_finite_differences(const std::function<double()>& loss,
                                                               Tensor& input, const Tensor& analytic,
                                                               const char* what,
                                                               const GradientCheckOptions& o) {
  if (!input.device().is_cpu())
    return ::testing::AssertionFailure() << what << ": the gradient checker runs on the CPU";
  float* v = input.data<float>();
  const std::vector<float> expected = analytic.to_vector<float>();
  const double h = o.step;
  int checked = 0, kinks = 0, bad = 0;
  std::ostringstream report;
  for (std::int64_t i : sample_indices(input.numel(), o.max_elements, o.seed)) {
    const float original = v[i];
    v[i] = original + o.step;
    const double plus = loss();
    v[i] = original - o.step;
    const double minus = loss();
    v[i] = original;
    const double centre = loss();
    const double forward_slope = (plus - centre) / h, backward_slope = (centre - minus) / h;
    const double numeric = (plus - minus) / (2 * h);
    // A kink inside [v - h, v + h]: the two one-sided slopes disagree by more than curvature
    // of a smooth function could explain at this step.
    if (std::abs(forward_slope - backward_slope) > 10 * (o.atol + o.rtol * std::abs(numeric))) {
      ++kinks;
      continue;
    }
    ++checked;
    const double a = expected[static_cast<std::size_t>(i)];
    if (std::abs(a - numeric) > o.atol + o.rtol * std::max(std::abs(a), std::abs(numeric))) {
      if (bad++ < 5)
        report << "\n  " << what << "[" << i << "]: analytic " << a << ", numeric " << numeric;
    }
  }
  const int sampled = checked + kinks;
  if (sampled > 0 && kinks > o.max_kink_fraction * sampled)
    return ::testing::AssertionFailure() << what << ": " << kinks << " of " << sampled
                                         << " sampled elements sit on a kink; use other inputs";
  if (bad > 0)
    return ::testing::AssertionFailure() << what << ": " << bad << " of " << checked
                                         << " gradients differ from central differences" << report.str();
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult gradients_match_finite_differences(Module& module, const Tensor& x,
                                                              const GradientCheckOptions& o) {
  Tensor input = x.clone();
  const Shape out_shape = module.output_shape(input.shape());
  const std::vector<float> r = random_values(out_shape.numel(), o.seed + 1);
  const Tensor weights = Tensor::from_vector(r, out_shape);
  auto loss = [&]() {
    const std::vector<float> y = module.forward(input).to_vector<float>();
    double sum = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i) sum += static_cast<double>(y[i]) * r[i];
    return sum;
  };
  // Analytic gradients at the unperturbed point.
  module.zero_grad();
  module.forward(input);
  const Tensor dx = module.backward(weights).clone();
  std::vector<Tensor> grads;
  for (Parameter* p : module.parameters()) grads.push_back(p->grad.clone());

  ::testing::AssertionResult result = gradient_matches_finite_differences(loss, input, dx, "input", o);
  if (!result) return result;
  std::size_t i = 0;
  for (Parameter* p : module.parameters()) {
    result = gradient_matches_finite_differences(loss, p->value, grads[i++], p->name.c_str(), o);
    if (!result) return result;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace kiln::testing
