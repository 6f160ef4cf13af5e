// Loss: what the Trainer minimises. forward(output, target) -> the batch's scalar mean loss on
// the device; backward(scale) -> the gradient of that mean (times scale) with respect to output.
// Results live in buffers the loss owns and reuses, valid until its next call.
#pragma once

#include <string>

#include "kiln/core/tensor.h"

namespace kiln {

class Loss {
 public:
  virtual ~Loss() = default;
  virtual const Tensor& forward(const Tensor& output, const Tensor& target) = 0;
  virtual const Tensor& backward(float scale = 1.0f) = 0;
  virtual std::string describe() const = 0;
};

}  // namespace kiln
