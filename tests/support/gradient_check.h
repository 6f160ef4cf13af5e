// GoogleTest's face of the library's gradient checker (layers/gradient_check.h): the same checks,
// returned as assertion results that print the checker's report on failure.
#pragma once

#include <gtest/gtest.h>

#include <functional>

#include "kiln/core/tensor.h"
#include "kiln/layers/gradient_check.h"
#include "kiln/layers/module.h"

namespace kiln::testing {

using GradientCheckOptions = kiln::GradientCheckOptions;

// kiln::check_gradients as an assertion.
::testing::AssertionResult gradients_match_finite_differences(
    Module& module, const Tensor& x, const GradientCheckOptions& options = {});

// kiln::check_gradient as an assertion.
::testing::AssertionResult gradient_matches_finite_differences(
    const std::function<double()>& loss, Tensor& input, const Tensor& analytic, const char* what,
    const GradientCheckOptions& options = {});

// The two modules' parameter gradients, parameter by parameter (same names), bitwise equal.
::testing::AssertionResult same_gradients(const Module& a, const Module& b);

}  // namespace kiln::testing
