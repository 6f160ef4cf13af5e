// make_optimizer (spec/optimizer_spec.h): the optimizer names and the settings' checks.
#include "kiln/spec/optimizer_spec.h"

#include <cmath>

#include "kiln/optim/adam.h"
#include "kiln/optim/sgd.h"

namespace kiln {

namespace {

bool is_sgd(const std::string& name) {
  return name == "sgd" || name == "momentum" || name == "nesterov";
}

void check_settings(const std::string& name, const OptimizerSettings& s) {
  KILN_CHECK(is_sgd(name) || name == "adam" || name == "adamw",
             "unknown optimizer '{}'; expected one of: sgd, momentum, nesterov, adam, adamw", name);
  const auto in_unit = [](float v) { return v >= 0.0f && v < 1.0f; };
  KILN_CHECK(!s.momentum || in_unit(*s.momentum), "{} must be in [0, 1), found {}",
             Setting::momentum, s.momentum.value_or(0.0f));
  KILN_CHECK(in_unit(s.beta1), "{} must be in [0, 1), found {}", Setting::beta1, s.beta1);
  KILN_CHECK(in_unit(s.beta2), "{} must be in [0, 1), found {}", Setting::beta2, s.beta2);
  KILN_CHECK(s.eps > 0.0f && std::isfinite(s.eps), "{} must be positive, found {}", Setting::eps,
             s.eps);
  KILN_CHECK(s.weight_decay >= 0.0f && std::isfinite(s.weight_decay), "{} must be >= 0, found {}",
             Setting::weight_decay, s.weight_decay);
  const OptimizerSettings defaults;
  if (is_sgd(name)) {
    KILN_CHECK(!s.decays,
               "OptimizerSettings::decays (weight-decay groups) sets Adam and AdamW, not {} "
               "{}, whose weight decay applies to every parameter",
               Setting::optimizer_spec, name);
    KILN_CHECK(s.beta1 == defaults.beta1 && s.beta2 == defaults.beta2 && s.eps == defaults.eps,
               "{}, {} and {} set Adam and AdamW, not {} {} (which takes {} and {})",
               Setting::beta1, Setting::beta2, Setting::eps, Setting::optimizer_spec, name,
               Setting::momentum, Setting::nesterov);
  } else {
    KILN_CHECK(!s.momentum && !s.nesterov,
               "{} and {} set SGD, not {} {}: its moments are set by {} and {}", Setting::momentum,
               Setting::nesterov, Setting::optimizer_spec, name, Setting::beta1, Setting::beta2);
  }
}

}  // namespace

float effective_momentum(const std::string& name, const OptimizerSettings& settings) {
  if (!is_sgd(name)) return 0.0f;
  constexpr float kMomentum = 0.9f;
  return settings.momentum.value_or(name == "sgd" ? 0.0f : kMomentum);
}

std::unique_ptr<Optimizer> make_optimizer(const std::string& name,
                                          std::vector<Parameter*> parameters, float lr,
                                          const OptimizerSettings& settings) {
  check_settings(name, settings);
  if (is_sgd(name)) {
    const float momentum = effective_momentum(name, settings);
    const bool nesterov = name == "nesterov" || settings.nesterov;
    KILN_CHECK(!nesterov || momentum > 0.0f,
               "Nesterov momentum needs a momentum above 0, found {} {}", Setting::momentum,
               momentum);
    return std::make_unique<Sgd>(std::move(parameters), lr,
                                 SgdOptions{momentum, 0.0f, settings.weight_decay, nesterov});
  }
  const AdamOptions options{settings.beta1,        settings.beta2, settings.eps,
                            settings.weight_decay, false,          settings.decays};
  if (name == "adam") return std::make_unique<Adam>(std::move(parameters), lr, options);
  return std::make_unique<AdamW>(std::move(parameters), lr, settings.weight_decay, options);
}

int optimizer_state_tensors(const std::string& name, const OptimizerSettings& settings) {
  if (name == "adam" || name == "adamw") return 2;
  return effective_momentum(name, settings) > 0.0f ? 1 : 0;
}

}  // namespace kiln
