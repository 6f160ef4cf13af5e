// kiln::activation_forward / activation_backward on the CPU for every activation: values against
// double-precision formulas, derivatives against those formulas and against central differences
// of the forward pass, dx aliasing dy, and the operand errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kiln/core/ops.h"
#include "tests/support/error_testing.h"
#include "tests/support/tensor_testing.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::random_tensor;

constexpr double kPi = 3.14159265358979323846;
constexpr float kSlope = 0.07f;  // LeakyReLU's negative slope, not the default, to see it used
constexpr Activation kAll[] = {Activation::relu, Activation::leaky_relu, Activation::sigmoid,
                               Activation::tanh, Activation::gelu,       Activation::gelu_tanh};
constexpr std::int64_t kSizes[] = {1, 7, 33, 1000, 40001};  // the last runs multithreaded

using testing::error_message;

const char* name(Activation f) {
  switch (f) {
    case Activation::relu: return "relu";
    case Activation::leaky_relu: return "leaky_relu";
    case Activation::sigmoid: return "sigmoid";
    case Activation::tanh: return "tanh";
    case Activation::gelu: return "gelu";
    case Activation::gelu_tanh: return "gelu_tanh";
  }
  return "?";
}

double reference(Activation f, double x) {
  switch (f) {
    case Activation::relu: return x > 0 ? x : 0.0;
    case Activation::leaky_relu: return x > 0 ? x : kSlope * x;
    case Activation::sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case Activation::tanh: return std::tanh(x);
    case Activation::gelu: return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    case Activation::gelu_tanh:
      return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / kPi) * (x + 0.044715 * x * x * x)));
  }
  return 0.0;
}

double reference_derivative(Activation f, double x) {
  switch (f) {
    case Activation::relu: return x > 0 ? 1.0 : 0.0;
    case Activation::leaky_relu: return x > 0 ? 1.0 : kSlope;
    case Activation::sigmoid: {
      const double s = 1.0 / (1.0 + std::exp(-x));
      return s * (1.0 - s);
    }
    case Activation::tanh: return 1.0 - std::tanh(x) * std::tanh(x);
    case Activation::gelu:
      return 0.5 * std::erfc(-x / std::sqrt(2.0)) +
             x * std::exp(-0.5 * x * x) / std::sqrt(2.0 * kPi);
    case Activation::gelu_tanh: {
      const double t = std::tanh(std::sqrt(2.0 / kPi) * (x + 0.044715 * x * x * x));
      return 0.5 * (1.0 + t) +
             0.5 * x * (1.0 - t * t) * std::sqrt(2.0 / kPi) * (1.0 + 3.0 * 0.044715 * x * x);
    }
  }
  return 0.0;
}

TEST(Activation, ForwardMatchesDoublePrecisionFormulaForEveryActivation) {
  std::uint32_t seed = 300;
  for (Activation f : kAll)
    for (std::int64_t n : kSizes) {
      SCOPED_TRACE(::testing::Message() << name(f) << " n " << n);
      const Tensor x = random_tensor(Shape{n}, seed++, -6.0f, 6.0f);
      Tensor y = Tensor::empty(Shape{n});
      activation_forward(f, x, y, kSlope);
      std::vector<float> expected;
      for (float v : x.to_vector<float>()) expected.push_back(static_cast<float>(reference(f, v)));
      EXPECT_TRUE(all_close(y.to_vector<float>(), expected, 1e-5f, 1e-7f));
    }
}

TEST(Activation, BackwardIsUpstreamGradientTimesDerivative) {
  std::uint32_t seed = 400;
  for (Activation f : kAll)
    for (std::int64_t n : kSizes) {
      SCOPED_TRACE(::testing::Message() << name(f) << " n " << n);
      const Tensor x = random_tensor(Shape{n}, seed++, -6.0f, 6.0f);
      const Tensor dy = random_tensor(Shape{n}, seed++);
      Tensor y = Tensor::empty(Shape{n}), dx = Tensor::empty(Shape{n});
      activation_forward(f, x, y, kSlope);
      activation_backward(f, x, y, dy, dx, kSlope);
      const auto xv = x.to_vector<float>(), dyv = dy.to_vector<float>();
      std::vector<float> expected(xv.size());
      for (std::size_t i = 0; i < xv.size(); ++i)
        expected[i] = static_cast<float>(dyv[i] * reference_derivative(f, xv[i]));
      // The absolute floor covers sigmoid and tanh, which differentiate through the rounded y:
      // 1 - y^2 loses relative precision where y is near +-1.
      EXPECT_TRUE(all_close(dx.to_vector<float>(), expected, 1e-5f, 1e-6f));
    }
}

TEST(Activation, BackwardMatchesCentralDifferencesOfForward) {
  constexpr float h = 1e-2f;
  for (Activation f : kAll) {
    SCOPED_TRACE(name(f));
    // Points kept away from ReLU's kink at 0, where the difference quotient straddles it.
    std::vector<float> points = testing::random_values(33, 7, -4.0f, 4.0f);
    for (float& p : points)
      if (std::abs(p) < 2 * h) p += 4 * h;
    const auto n = static_cast<std::int64_t>(points.size());
    std::vector<float> plus(points), minus(points);
    for (std::size_t i = 0; i < points.size(); ++i) plus[i] += h, minus[i] -= h;
    const Tensor x = Tensor::from_vector(points, Shape{n});
    const Tensor xp = Tensor::from_vector(plus, Shape{n}),
                 xm = Tensor::from_vector(minus, Shape{n});
    Tensor y = Tensor::empty(Shape{n}), yp = Tensor::empty(Shape{n}), ym = Tensor::empty(Shape{n});
    activation_forward(f, x, y, kSlope);
    activation_forward(f, xp, yp, kSlope);
    activation_forward(f, xm, ym, kSlope);
    Tensor dx = Tensor::full(Shape{n}, 1.0f);  // dy = 1, updated in place: dx aliases dy
    activation_backward(f, x, y, dx, dx, kSlope);
    const auto ypv = yp.to_vector<float>(), ymv = ym.to_vector<float>();
    std::vector<float> numeric(points.size());
    for (std::size_t i = 0; i < points.size(); ++i)
      numeric[i] = (double(ypv[i]) - ymv[i]) / (double(plus[i]) - minus[i]);
    EXPECT_TRUE(all_close(dx.to_vector<float>(), numeric, 1e-3f, 1e-3f));
  }
}

TEST(Activation, BackwardWritesIntoUpstreamGradientWhenTheyAlias) {
  const Tensor x = random_tensor(Shape{1000}, 5, -3.0f, 3.0f);
  Tensor y = Tensor::empty(Shape{1000}), separate = Tensor::empty(Shape{1000});
  activation_forward(Activation::gelu, x, y);
  Tensor dy = random_tensor(Shape{1000}, 6);
  activation_backward(Activation::gelu, x, y, dy, separate);
  activation_backward(Activation::gelu, x, y, dy, dy);
  EXPECT_TRUE(all_close(dy, separate, 0.0f, 0.0f));
}

TEST(Activation, LeakyReluUsesDefaultSlopeOfOneHundredth) {
  const Tensor x = Tensor::from_vector(std::vector<float>{-3.0f, 2.0f, -0.5f}, Shape{3});
  Tensor y = Tensor::empty(Shape{3});
  activation_forward(Activation::leaky_relu, x, y);
  EXPECT_TRUE(all_close(y.to_vector<float>(), {-0.03f, 2.0f, -0.005f}, 1e-6f, 0.0f));
}

TEST(Activation, ForwardRejectsOutputOfDifferentShapeNamingBoth) {
  const Tensor x = random_tensor(Shape{7}, 1);
  Tensor y = Tensor::empty(Shape{8});
  const std::string message = error_message([&] { activation_forward(Activation::relu, x, y); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "x has shape (7,) but y has shape (8,)", message);
}

TEST(Activation, BackwardRejectsGradientOfDifferentShapeNamingBoth) {
  const Tensor x = random_tensor(Shape{7, 3}, 1), dy = random_tensor(Shape{3, 7}, 2);
  Tensor y = Tensor::empty(Shape{7, 3}), dx = Tensor::empty(Shape{7, 3});
  const std::string message =
      error_message([&] { activation_backward(Activation::tanh, x, y, dy, dx); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "x has shape (7, 3) but dy has shape (3, 7)",
                      message);
}

TEST(Activation, ForwardRejectsIntegerOutput) {
  const Tensor x = random_tensor(Shape{7}, 1);
  Tensor y = Tensor::zeros(Shape{7}, DType::i32);
  const std::string message = error_message([&] { activation_forward(Activation::sigmoid, x, y); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "activation_forward: y must be", message);
}

}  // namespace
}  // namespace kiln
