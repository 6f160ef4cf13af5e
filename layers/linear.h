// Linear: y = x Wᵀ + b, W: (out, in), b: (out), initialised as PyTorch's nn.Linear does
// (Kaiming-uniform with a = sqrt(5), i.e. U(-1/sqrt(in), 1/sqrt(in)), for W and for b).
// forward_relu computes ReLU(x Wᵀ + b) in one op (linear_forward's fused epilogue); Sequential
// uses it for a Linear followed by a ReLU, whose own forward and backward it then skips.
#pragma once

#include "kiln/core/random.h"
#include "kiln/layers/module.h"

namespace kiln {

class Linear : public Module {
 public:
  Linear(std::int64_t in_features, std::int64_t out_features, Generator& gen, bool bias = true);

  std::string describe() const override;
  Shape output_shape(const Shape& input) const override;  // (N, in) -> (N, out)
  Parameter& weight() { return *weight_; }
  Parameter* bias() { return bias_; }
  // ReLU(forward(x)) in one op; the next backward then takes the gradient of that ReLU'd output.
  Tensor forward_relu(const Tensor& x);

 protected:
  Tensor forward_impl(const Tensor& x) override;   // x: (N, in) -> y: (N, out)
  Tensor backward_impl(const Tensor& dy) override;  // dy: (N, out) -> dx: (N, in)

 private:
  // The weight's bf16 copy where layers keep one (core/ops.h, keeps_bf16_copies), made here
  // when missing; else undefined.
  const Tensor& weight_bf16();

  std::int64_t in_, out_;
  Parameter* weight_;
  Parameter* bias_ = nullptr;
  Tensor x_;  // the input of the last forward, for the weight gradient
  Tensor y_, dx_;
  Tensor dpre_;                 // the gradient before the fused ReLU
  bool relu_requested_ = false;  // set by forward_relu for the forward_impl it calls
  bool relu_applied_ = false;    // whether the last forward's output was ReLU'd
};

}  // namespace kiln
