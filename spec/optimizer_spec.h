// make_optimizer: an optimizer by name, the optimizer words of the spec language, with its
// settings: sgd, momentum and nesterov (SGD), adam and adamw.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/optim/optimizer.h"

namespace kiln {

// The defaults are PyTorch's (betas 0.9/0.999, eps 1e-8, dampening 0), so OptimizerSettings{}
// trains bit for bit as before the settings existed.
struct OptimizerSettings {
  // SGD's momentum in [0, 1); unset: 0 for sgd, 0.9 for momentum and nesterov.
  std::optional<float> momentum;
  bool nesterov = false;  // Nesterov momentum for sgd and momentum (nesterov always has it)
  float beta1 = 0.9f;     // Adam and AdamW: in [0, 1)
  float beta2 = 0.999f;   // in [0, 1)
  float eps = 1e-8f;      // > 0
  float weight_decay = 0.0f;
  // Adam and AdamW: the parameters weight_decay applies to (AdamOptions::decays; GPT recipes'
  // groups: models/gpt_weight_decay.h); empty: every parameter.
  std::function<bool(const Parameter&)> decays;
};

// The names:
//   sgd       SGD (momentum 0 unless set)   momentum  SGD, momentum 0.9 unless set
//   nesterov  SGD, Nesterov momentum (0.9 unless set)
//   adam      Adam (L2 weight decay added to the gradient)   adamw  AdamW (decoupled weight decay)
// Throws kiln::Error listing the accepted names when `name` is not one of them, for a setting
// out of range, and for one the named optimizer does not have (beta1 for SGD, momentum for
// Adam), naming the OptimizerSettings field.
std::unique_ptr<Optimizer> make_optimizer(const std::string& name,
                                          std::vector<Parameter*> parameters, float lr,
                                          const OptimizerSettings& settings = {});

// The momentum SGD of `name` runs with: the setting, or the name's default (0 for Adam).
float effective_momentum(const std::string& name, const OptimizerSettings& settings);

// The state tensors (each shaped like its parameter) the optimizer of `name` keeps: 2 for Adam
// and AdamW (two moments), 1 for SGD with momentum, 0 without; for memory estimates.
int optimizer_state_tensors(const std::string& name, const OptimizerSettings& settings);

}  // namespace kiln
