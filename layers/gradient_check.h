// A central-difference gradient checker for any Module (after Caffe's test_gradient_check_util),
// public so that a layer written outside kiln is checked as kiln's own are. Points where the
// function has a kink (ReLU at 0, max pooling ties) are found generically — the one-sided
// differences disagree — and skipped, within a budget.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "kiln/core/tensor.h"
#include "kiln/layers/module.h"

namespace kiln {

struct GradientCheckOptions {
  float step = 1e-2f;  // h, in float32: large enough that rounding stays small
  double rtol = 2e-2;
  double atol = 2e-3;
  int max_elements = 64;  // elements sampled per tensor (all when fewer)
  double max_kink_fraction = 0.25;
  std::uint32_t seed = 7;
  // Whether the input is perturbed too: not for an input of integer ids (Embedding), which has
  // no gradient and takes no fractional values.
  bool check_input = true;
};

struct GradientCheckResult {
  bool ok = true;
  // One line per tensor that failed, each followed by its worst mismatches (analytic against
  // numeric); empty when ok.
  std::string report;
  explicit operator bool() const { return ok; }
};

// A module is checked on L(x, θ) = sum(forward(x) * R) for a fixed random R, so dL/dy = R:
// backward(R) must match (L(v + h) - L(v - h)) / 2h for sampled input and parameter elements.
// Checks module.backward against central differences, for the input and every parameter. The
// module must be on the CPU, in training mode, with a deterministic forward; its gradients are
// left as one backward at x makes them.
GradientCheckResult check_gradients(Module& module, const Tensor& x,
                                    const GradientCheckOptions& options = {});

// Checks an analytic gradient of a scalar function of one CPU float32 tensor: `loss` evaluates f
// at the tensor's current contents; `analytic` (input's shape) holds df/dinput; `what` names the
// tensor in the report.
GradientCheckResult check_gradient(const std::function<double()>& loss, Tensor& input,
                                   const Tensor& analytic, std::string_view what,
                                   const GradientCheckOptions& options = {});

}  // namespace kiln
