// Mean squared error: mean over all elements of (prediction - target)², as PyTorch's MSELoss.
#pragma once

#include "kiln/layers/loss.h"

namespace kiln {

class MSELoss : public Loss {
 public:
  // prediction, target: same shape and device -> (1) mean squared error, on the device.
  const Tensor& forward(const Tensor& prediction, const Tensor& target) override;
  // -> dprediction = scale * 2 (prediction - target) / numel.
  const Tensor& backward(float scale = 1.0f) override;
  std::string describe() const override { return "MSELoss"; }

 private:
  Tensor diff_, loss_, dprediction_;
};

}  // namespace kiln
