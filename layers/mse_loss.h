// Mean squared error: mean over all elements of (prediction - target)², as PyTorch's MSELoss.
#pragma once

#include "kiln/layers/loss.h"

namespace kiln {

class MSELoss : public Loss {
 public:
  // forward(prediction, target): float32, same shape and device -> () mean squared error, on
  // the device.
  // -> dprediction = scale * 2 (prediction - target) / numel.
  const Tensor& backward(float scale = 1.0f) override;
  std::string describe() const override { return "MSELoss"; }
  bool expects_class_labels() const override { return false; }

 private:
  const Tensor& compute(const Tensor& prediction, const Tensor& target) override;

  Tensor diff_, loss_, scalar_,
      dprediction_;  // loss_: (1), as sum_squares writes it; scalar_: its () view
};

}  // namespace kiln
