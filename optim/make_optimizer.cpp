// make_optimizer: the name table of make_optimizer.h.
#include "kiln/optim/make_optimizer.h"

#include "kiln/optim/adam.h"
#include "kiln/optim/sgd.h"

namespace kiln {

std::unique_ptr<Optimizer> make_optimizer(const std::string& name,
                                          std::vector<Parameter*> parameters, float lr,
                                          float weight_decay) {
  constexpr float kMomentum = 0.9f;
  if (name == "sgd")
    return std::make_unique<Sgd>(std::move(parameters), lr, SgdOptions{0.0f, 0.0f, weight_decay});
  if (name == "momentum")
    return std::make_unique<Sgd>(std::move(parameters), lr,
                                 SgdOptions{kMomentum, 0.0f, weight_decay});
  if (name == "nesterov")
    return std::make_unique<Sgd>(std::move(parameters), lr,
                                 SgdOptions{kMomentum, 0.0f, weight_decay, true});
  if (name == "adam") {
    AdamOptions options;
    options.weight_decay = weight_decay;
    return std::make_unique<Adam>(std::move(parameters), lr, options);
  }
  if (name == "adamw") return std::make_unique<AdamW>(std::move(parameters), lr, weight_decay);
  KILN_THROW("unknown optimizer '{}'; expected one of: sgd, momentum, nesterov, adam, adamw", name);
}

}  // namespace kiln
