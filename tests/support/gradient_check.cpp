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

::testing::AssertionResult same_gradients(const Module& a, const Module& b) {
  const auto pa = a.parameters(), pb = b.parameters();
  if (pa.size() != pb.size())
    return ::testing::AssertionFailure() << pa.size() << " parameters against " << pb.size();
  for (std::size_t i = 0; i < pa.size(); ++i) {
    if (pa[i]->name != pb[i]->name)
      return ::testing::AssertionFailure()
             << "parameter " << i << " is " << pa[i]->name << " and " << pb[i]->name;
    if (pa[i]->grad.to_vector<float>() != pb[i]->grad.to_vector<float>())
      return ::testing::AssertionFailure() << "the gradients of " << pa[i]->name << " differ";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace kiln::testing
