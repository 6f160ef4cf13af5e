// The one central-difference gradient checker every layer and loss goes through (after Caffe's
// test_gradient_check_util). A module is checked on L(x, θ) = sum(forward(x) * R) for a fixed
// random R, so dL/dy = R: backward(R) must match (L(v + h) - L(v - h)) / 2h for sampled input
// and parameter elements. Points where the function has a kink (ReLU at 0, max pooling ties) are
// found generically — the one-sided differences disagree — and skipped, within a budget.
#pragma once

#include <gtest/gtest.h>

#include <functional>

#include "kiln/core/tensor.h"
#include "kiln/layers/module.h"

namespace kiln::testing {

struct GradientCheckOptions {
  float step = 1e-2f;        // h, in float32: large enough that rounding stays small
  double rtol = 2e-2;
  double atol = 2e-3;
  int max_elements = 64;     // elements sampled per tensor (all when fewer)
  double max_kink_fraction = 0.25;
  std::uint32_t seed = 7;
};

// Checks module.backward against central differences, for the input and every parameter.
// The module must be on the CPU, in training mode, with a deterministic forward.
::testing::AssertionResult gradients_match_finite_differences(Module& module, const Tensor& x,
                                                              const GradientCheckOptions& options = {});

// Checks an analytic gradient of a scalar function of one CPU tensor: `loss` evaluates f at the
// tensor's current contents; `analytic` holds df/dinput.
::testing::AssertionResult gradient_matches_finite_differences(const std::function<double()>& loss,
                                                               Tensor& input, const Tensor& analytic,
                                                               const char* what,
                                                               const GradientCheckOptions& options = {});

}  // namespace kiln::testing
