// make_optimizer: an optimizer by name, for command lines and model specs.
//   sgd       SGD, no momentum            momentum  SGD, momentum 0.9
//   nesterov  SGD, Nesterov momentum 0.9  adam      Adam (L2 weight decay added to the gradient)
//   adamw     AdamW (decoupled weight decay)
// Other hyper-parameters keep PyTorch's defaults (betas 0.9/0.999, eps 1e-8, dampening 0).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kiln/optim/optimizer.h"

namespace kiln {

// Throws kiln::Error listing the accepted names when `name` is not one of them.
std::unique_ptr<Optimizer> make_optimizer(const std::string& name,
                                          std::vector<Parameter*> parameters, float lr,
                                          float weight_decay = 0.0f);

}  // namespace kiln
