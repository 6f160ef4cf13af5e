// Activation layers: ReLU, LeakyReLU, Sigmoid, Tanh, GELU (exact, erf-based, as PyTorch's
// default, or its tanh approximation, GPT-2's: GELU(GeluApproximate::tanh)). Elementwise on any
// shape; backward uses the cached input and output.
#pragma once

#include "kiln/core/op_kinds.h"
#include "kiln/layers/module.h"

namespace kiln {

class ActivationLayer : public Module {
 public:
  explicit ActivationLayer(Activation kind, float alpha = 0.01f) : kind_(kind), alpha_(alpha) {}
  std::string describe() const override;
  Shape output_shape(const Shape& input) const override { return input; }
  Activation kind() const { return kind_; }
  float alpha() const { return alpha_; }  // LeakyReLU's negative slope
  std::optional<Activation> elementwise_activation() const override { return kind_; }

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override;

 private:
  Activation kind_;
  float alpha_;
  Tensor x_, y_;  // input and output (backward's dx is reuse_gradient's slot 0)
};

struct ReLU : ActivationLayer {
  ReLU() : ActivationLayer(Activation::relu) {}
};
struct LeakyReLU : ActivationLayer {
  explicit LeakyReLU(float negative_slope = 0.01f)
      : ActivationLayer(Activation::leaky_relu, negative_slope) {}
};
struct Sigmoid : ActivationLayer {
  Sigmoid() : ActivationLayer(Activation::sigmoid) {}
};
struct Tanh : ActivationLayer {
  Tanh() : ActivationLayer(Activation::tanh) {}
};
enum class GeluApproximate : unsigned char { none, tanh };
struct GELU : ActivationLayer {
  explicit GELU(GeluApproximate approximate = GeluApproximate::none)
      : ActivationLayer(approximate == GeluApproximate::tanh ? Activation::gelu_tanh
                                                             : Activation::gelu) {}
};

}  // namespace kiln
