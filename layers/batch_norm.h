// BatchNorm1d over (N, C) or (N, C, L), as PyTorch's: in training, y = (x - mean) / sqrt(var + eps)
// * weight + bias with the batch's mean and biased variance, and the running statistics move by
// `momentum` towards the batch's mean and unbiased variance; in eval, the running statistics
// normalise. weight starts at 1, bias at 0, running_mean at 0, running_var at 1; the running
// statistics are buffers ("running_mean", "running_var"), saved with the parameters.
#pragma once

#include "kiln/layers/module.h"

namespace kiln {

class BatchNorm1d : public Module {
 public:
  explicit BatchNorm1d(std::int64_t features, float eps = 1e-5f, float momentum = 0.1f);

  std::string describe() const override;
  Shape output_shape(const Shape& input) const override;  // the input's shape
  Parameter& weight() { return *weight_; }
  Parameter& bias() { return *bias_; }
  Tensor& running_mean() { return running_mean_->value; }
  Tensor& running_var() { return running_var_->value; }
  std::int64_t features() const { return features_; }
  float eps() const { return eps_; }
  float momentum() const { return momentum_; }

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override;

 private:
  std::int64_t features_;
  float eps_, momentum_;
  Parameter* weight_;
  Parameter* bias_;
  Buffer* running_mean_;
  Buffer* running_var_;
  Tensor x_;                        // the input of the last training forward
  Tensor save_mean_, save_invstd_;  // its batch statistics, (C)
  Tensor y_, dx_;
};

}  // namespace kiln
