// Cases of the activations: each function (LeakyReLU at two slopes) forward and backward at odd
// and zero sizes over [-6, 6) (saturated tails and the middle), backward in place (dx aliasing
// dy), NaN/inf sentinels, a slice of rows; backward gets the reference's y on every backend, so
// each direction is compared on identical inputs. Finite differences check every backward.
#include "kiln/core/ops.h"
#include "tests/ops/cases/harness.h"
#include "tests/support/gradient_check.h"

namespace kiln::ops_testing {
namespace {

struct Function {
  Activation f;
  float alpha;
  const char* name;
};
constexpr Function kFunctions[] = {{Activation::relu, 0.01f, "relu"},
                                   {Activation::leaky_relu, 0.01f, "leaky_relu 0.01"},
                                   {Activation::leaky_relu, 0.2f, "leaky_relu 0.2"},
                                   {Activation::sigmoid, 0.01f, "sigmoid"},
                                   {Activation::tanh, 0.01f, "tanh"},
                                   {Activation::gelu, 0.01f, "gelu"},
                                   {Activation::gelu_tanh, 0.01f, "gelu_tanh"}};
constexpr std::int64_t kSizes[] = {0, 1, 7, 33, 1000, 4099};
// Values near a derivative's zero (GELU's at x = -0.75) cancel; 1e-6 absolute covers that.
constexpr Tolerance kTol{1e-5f, 1e-6f};

Tensor forward_on_cpu(const Function& fn, const Tensor& x) {
  Tensor y = Tensor::empty(x.shape());
  activation_forward(fn.f, x, y, fn.alpha);
  return y;
}

std::vector<OpCase> cases() {
  std::vector<OpCase> out;
  std::uint32_t seed = 200;
  for (const Function& fn : kFunctions) {
    for (std::int64_t n : kSizes) {
      const std::string size = std::string(fn.name) + " n=" + std::to_string(n);
      const std::uint32_t s = seed++;
      out.push_back({"activation_forward", "Activation", size,
                     [=](Device d) -> Outputs {
                       const Tensor x = input({n}, s, -6.0f, 6.0f).to(d);
                       Tensor y = Tensor::empty({n}, DType::f32, d);
                       activation_forward(fn.f, x, y, fn.alpha);
                       return {{"y", y}};
                     },
                     kTol});
      out.push_back({"activation_backward", "Activation", size,
                     [=](Device d) -> Outputs {
                       const Tensor x_cpu = input({n}, s, -6.0f, 6.0f);
                       const Tensor x = x_cpu.to(d), y = forward_on_cpu(fn, x_cpu).to(d);
                       const Tensor dy = input({n}, s + 1000).to(d);
                       Tensor dx = Tensor::empty({n}, DType::f32, d);
                       activation_backward(fn.f, x, y, dy, dx, fn.alpha);
                       Tensor in_place = dy.clone();  // dx aliases dy
                       activation_backward(fn.f, x, y, in_place, in_place, fn.alpha);
                       return {{"dx", dx}, {"dx=dy", in_place}};
                     },
                     kTol});
    }
    out.push_back({"activation_forward", "Activation", std::string(fn.name) + " NaN/inf",
                   [=](Device d) -> Outputs {
                     const Tensor x = with_sentinels(input({33}, 290, -6.0f, 6.0f)).to(d);
                     Tensor y = Tensor::empty({33}, DType::f32, d);
                     activation_forward(fn.f, x, y, fn.alpha);
                     return {{"y", y}};
                   },
                   kTol});
  }
  // Into rows 3..8 of a zeroed (9, 33): the rows around stay zero.
  out.push_back({"activation_forward", "Activation", "gelu on a slice of rows",
                 [](Device d) -> Outputs {
                   const Tensor x = input({9, 33}, 400, -3.0f, 3.0f).to(d);
                   Tensor y = Tensor::zeros({9, 33}, DType::f32, d);
                   Tensor rows = y.slice(3, 8);
                   activation_forward(Activation::gelu, x.slice(3, 8), rows);
                   return {{"y", y}};
                 },
                 kTol});
  return out;
}

std::vector<GradientCase> gradients() {
  std::vector<GradientCase> out;
  for (const Function& fn : kFunctions)
    out.push_back({"activation_backward", fn.name, [fn]() {
                     // Away from ReLU's kink at 0 the checker's kink window is not needed.
                     Tensor x = input({37}, 480, -3.0f, 3.0f);
                     const Tensor w = input({37}, 481);
                     Tensor y = forward_on_cpu(fn, x), dx = Tensor::empty({37});
                     activation_backward(fn.f, x, y, w, dx, fn.alpha);
                     return testing::gradient_matches_finite_differences(
                         [&] { return weighted_sum(forward_on_cpu(fn, x), w); }, x, dx, "x");
                   }});
  return out;
}

const AddCases kCases(cases());
const AddCases kGradients(gradients());

}  // namespace
}  // namespace kiln::ops_testing
