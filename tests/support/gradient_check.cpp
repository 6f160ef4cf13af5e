#include "tests/support/gradient_check.h"

namespace kiln::testing {

namespace {
::testing::AssertionResult as_assertion(const GradientCheckResult& result) {
  if (result) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << result.report;
}
}  // namespace

::testing::AssertionResult gradients_match_finite_differences(Module& module, const Tensor& x,
                                                              const GradientCheckOptions& options) {
  return as_assertion(check_gradients(module, x, options));
}

::testing::AssertionResult gradient_matches_finite_differences(
    const std::function<double()>& loss, Tensor& input, const Tensor& analytic, const char* what,
    const GradientCheckOptions& options) {
  return as_assertion(check_gradient(loss, input, analytic, what, options));
}

}  // namespace kiln::testing
