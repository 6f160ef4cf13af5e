// LayerNorm over the last axis, as PyTorch's nn.LayerNorm(features): each row of x (..., features)
// is normalised by its own mean and biased variance, y = (x - mean) / sqrt(var + eps) * weight +
// bias, in training and eval alike (no running statistics). weight starts at 1, bias at 0.
#pragma once

#include "kiln/layers/module.h"

namespace kiln {

class LayerNorm : public Module {
 public:
  explicit LayerNorm(std::int64_t features, float eps = 1e-5f);

  std::string describe() const override;
  Shape output_shape(const Shape& input) const override;  // the input's shape
  Parameter& weight() { return *weight_; }
  Parameter& bias() { return *bias_; }
  std::int64_t features() const { return features_; }
  float eps() const { return eps_; }

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override;

 private:
  std::int64_t features_;
  float eps_;
  Parameter* weight_;
  Parameter* bias_;
  Tensor x_;                        // the input of the last forward
  Tensor save_mean_, save_invstd_;  // its rows' statistics
  Tensor y_;                        // the output (dx is reuse_gradient's slot 0)
};

}  // namespace kiln
