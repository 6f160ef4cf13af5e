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
  KILN_CHECK(!s.momentum || in_unit(*s.momentum), "OptimizerSettings::momentum must be in [0, 1), found {}",
             s.momentum.value_or(0.0f));
  KILN_CHECK(in_unit(s.beta1), "OptimizerSettings::beta1 must be in [0, 1), found {}", s.beta1);
  KILN_CHECK(in_unit(s.beta2), "OptimizerSettings::beta2 must be in [0, 1), found {}", s.beta2);
  KILN_CHECK(s.eps > 0.0f && std::isfinite(s.eps), "OptimizerSettings::eps must be positive, found {}", s.eps);
  KILN_CHECK(s.weight_decay >= 0.0f && std::isfinite(s.weight_decay),
             "OptimizerSettings::weight_decay must be >= 0, found {}", s.weight_decay);
  const OptimizerSettings defaults;
  if (is_sgd(name)) {
    KILN_CHECK(!s.decays,
               "OptimizerSettings::decays (weight-decay groups) sets Adam and AdamW, not optimizer "
               "{}, whose weight decay applies to every parameter",
               name);
    KILN_CHECK(s.beta1 == defaults.beta1 && s.beta2 == defaults.beta2 && s.eps == defaults.eps,
               "OptimizerSettings::beta1, OptimizerSettings::beta2 and OptimizerSettings::eps set Adam "
               "and AdamW, not optimizer {} (which takes OptimizerSettings::momentum and "
               "OptimizerSettings::nesterov)",
               name);
  } else {
    KILN_CHECK(!s.momentum && !s.nesterov,
               "OptimizerSettings::momentum and OptimizerSettings::nesterov set SGD, not optimizer {}: its "
               "moments are set by OptimizerSettings::beta1 and OptimizerSettings::beta2",
               name);
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
               "Nesterov momentum needs a momentum above 0, found OptimizerSettings::momentum {}", momentum);
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
