// The public gradient checker on a module written outside kiln's layer list: it passes a right
// backward and fails, naming the tensor and its worst elements, a wrong one.
#include <gtest/gtest.h>

#include "kiln/layers/gradient_check.h"
#include "kiln/layers/module.h"
#include "tests/support/tensor_testing.h"

using kiln::Tensor;

namespace {
enum class Bug { none, input_gradient, parameter_gradient };

// y[n, f] = scale[f] * x[n, f]^2, written with plain loops as a user would, on the CPU.
class ScaledSquare : public kiln::Module {
 public:
  ScaledSquare(std::int64_t features, Bug bug) : features_(features), bug_(bug) {
    scale_ = &register_parameter("scale", kiln::testing::random_tensor({features}, 1, 0.5f, 1.5f));
  }
  std::string describe() const override { return "ScaledSquare"; }
  kiln::Shape output_shape(const kiln::Shape& input) const override {
    KILN_CHECK(input.rank() == 2 && input[1] == features_,
               "ScaledSquare: expected (N, {}), found {}", features_, input.str());
    return input;
  }

 protected:
  Tensor forward_impl(const Tensor& x) override {
    x_ = x;
    Tensor& y = reuse(y_, x.shape());
    const float *xv = x.data<float>(), *s = scale_->value.data<float>();
    float* yv = y.data<float>();
    for (std::int64_t i = 0; i < x.numel(); ++i) yv[i] = s[i % features_] * xv[i] * xv[i];
    return y;
  }
  Tensor backward_impl(const Tensor& dy) override {
    Tensor& dx = reuse(dx_, dy.shape());
    const float *xv = x_.data<float>(), *s = scale_->value.data<float>(), *g = dy.data<float>();
    float *dxv = dx.data<float>(), *ds = scale_->grad.data<float>();
    const float input_factor = bug_ == Bug::input_gradient ? 1.0f : 2.0f;  // d(x^2)/dx = 2x
    for (std::int64_t i = 0; i < dy.numel(); ++i) {
      const std::int64_t f = i % features_;
      dxv[i] = g[i] * input_factor * s[f] * xv[i];
      ds[f] += g[i] * xv[i] * (bug_ == Bug::parameter_gradient ? 1.0f : xv[i]);
    }
    return dx;
  }

 private:
  std::int64_t features_;
  Bug bug_;
  kiln::Parameter* scale_;
  Tensor x_, y_, dx_;
};
}  // namespace

TEST(GradientCheck, PassesAUserModuleWithARightBackward) {
  ScaledSquare module(7, Bug::none);
  const kiln::GradientCheckResult result =
      kiln::check_gradients(module, kiln::testing::random_tensor({5, 7}, 2));
  EXPECT_TRUE(result.ok) << result.report;
  EXPECT_EQ(result.report, "");
}

TEST(GradientCheck, FailsAWrongInputGradientNamingTheWorstElements) {
  ScaledSquare module(7, Bug::input_gradient);
  const kiln::GradientCheckResult result =
      kiln::check_gradients(module, kiln::testing::random_tensor({5, 7}, 2));
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.report.rfind("input: ", 0), 0u) << result.report;
  EXPECT_NE(result.report.find("gradients differ from central differences"), std::string::npos)
      << result.report;
  EXPECT_NE(result.report.find("analytic"), std::string::npos) << result.report;
  EXPECT_EQ(result.report.find("scale"), std::string::npos)
      << "the parameter's gradient is right: " << result.report;
}

TEST(GradientCheck, FailsAWrongParameterGradientNamingTheParameter) {
  ScaledSquare module(7, Bug::parameter_gradient);
  const kiln::GradientCheckResult result =
      kiln::check_gradients(module, kiln::testing::random_tensor({5, 7}, 2));
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.report.rfind("scale: ", 0), 0u) << result.report;
}

TEST(GradientCheck, RefusesAnAnalyticGradientOfAnotherShape) {
  Tensor input = kiln::testing::random_tensor({3}, 3);
  EXPECT_THROW(kiln::check_gradient([] { return 0.0; }, input, Tensor::zeros({4}), "v"),
               kiln::Error);
}
