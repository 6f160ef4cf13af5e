// The gradient checker: sampled central differences, kinks skipped, the worst mismatches reported.
#include "kiln/layers/gradient_check.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace kiln {

namespace {
constexpr std::size_t kReportedMismatches = 5;

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

// R of L = sum(y * R): uniform in [-1, 1) from a std::mt19937, independent of kiln's RNG (so a
// bug there cannot hide in the check).
std::vector<float> output_weights(std::int64_t n, std::uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(static_cast<std::size_t>(n));
  for (auto& v : values) v = dist(engine);
  return values;
}

struct Mismatch {
  std::int64_t index;
  double analytic, numeric, excess;  // excess: the difference over its tolerance (> 1)
};
}  // namespace

GradientCheckResult check_gradient(const std::function<double()>& loss, Tensor& input,
                                   const Tensor& analytic, std::string_view what,
                                   const GradientCheckOptions& o) {
  KILN_CHECK(input.defined() && input.device().is_cpu() && input.dtype() == DType::f32,
             "check_gradient({}): the checker perturbs a float32 tensor on the CPU, found {}; move "
             "the module or tensor to the CPU first",
             what, input.str());
  KILN_CHECK(analytic.defined() && analytic.shape() == input.shape(),
             "check_gradient({}): the analytic gradient must have the input's shape {}, found {}",
             what, input.shape().str(),
             analytic.defined() ? analytic.shape().str() : std::string("none"));
  float* v = input.data<float>();
  const std::vector<float> expected = analytic.to_vector<float>();
  const double h = o.step;
  int checked = 0, kinks = 0;
  std::vector<Mismatch> bad;
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
    const double tolerance = o.atol + o.rtol * std::max(std::abs(a), std::abs(numeric));
    if (std::abs(a - numeric) > tolerance)
      bad.push_back({i, a, numeric, std::abs(a - numeric) / tolerance});
  }
  GradientCheckResult result;
  const int sampled = checked + kinks;
  if (sampled > 0 && kinks > o.max_kink_fraction * sampled) {
    result.ok = false;
    result.report = fmt::format("{}: {} of {} sampled elements sit on a kink; use other inputs",
                                what, kinks, sampled);
    return result;
  }
  if (bad.empty()) return result;
  std::sort(bad.begin(), bad.end(),
            [](const Mismatch& l, const Mismatch& r) { return l.excess > r.excess; });
  result.ok = false;
  result.report = fmt::format(
      "{}: {} of {} gradients differ from central differences (step {}, rtol {}, "
      "atol {}); the worst:",
      what, bad.size(), checked, o.step, o.rtol, o.atol);
  for (std::size_t k = 0; k < std::min(bad.size(), kReportedMismatches); ++k)
    result.report +=
        fmt::format("\n  {}[{}]: analytic {:.6g}, numeric {:.6g} ({:.1f}x the tolerance)", what,
                    bad[k].index, bad[k].analytic, bad[k].numeric, bad[k].excess);
  return result;
}

GradientCheckResult check_gradients(Module& module, const Tensor& x,
                                    const GradientCheckOptions& o) {
  KILN_CHECK(module.device().is_cpu(),
             "check_gradients({}): the checker runs on the CPU, but the module is on {}; call "
             ".to(Device::cpu()) first",
             module.describe(), module.device().str());
  Tensor input = x.clone();
  const Shape out_shape = module.output_shape(input.shape());
  const std::vector<float> r = output_weights(out_shape.numel(), o.seed + 1);
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

  GradientCheckResult all =
      o.check_input ? check_gradient(loss, input, dx, "input", o) : GradientCheckResult{};
  std::size_t i = 0;
  for (Parameter* p : module.parameters()) {
    const GradientCheckResult one = check_gradient(loss, p->value, grads[i++], p->name, o);
    if (one) continue;
    all.report += (all.report.empty() ? "" : "\n") + one.report;
    all.ok = false;
  }
  return all;
}

}  // namespace kiln
