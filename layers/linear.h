// Linear: y = x Wᵀ + b, W: (out, in), b: (out), initialised as PyTorch's nn.Linear does
// (Kaiming-uniform with a = sqrt(5), i.e. U(-1/sqrt(in), 1/sqrt(in)), for W and for b).
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

 protected:
  Tensor forward_impl(const Tensor& x) override;   // x: (N, in) -> y: (N, out)
  Tensor backward_impl(const Tensor& dy) override;  // dy: (N, out) -> dx: (N, in)

 private:
  std::int64_t in_, out_;
  Parameter* weight_;
  Parameter* bias_ = nullptr;
  Tensor x_;  // the input of the last forward, for the weight gradient
  Tensor y_, dx_;
};

}  // namespace kiln
