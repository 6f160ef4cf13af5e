// Activation layers over activation_forward / activation_backward.
#include "kiln/layers/activations.h"

#include "kiln/core/ops.h"

namespace kiln {

std::string ActivationLayer::describe() const {
  switch (kind_) {
    case Activation::relu: return "ReLU";
    case Activation::leaky_relu: return fmt::format("LeakyReLU({})", alpha_);
    case Activation::sigmoid: return "Sigmoid";
    case Activation::tanh: return "Tanh";
    case Activation::gelu: return "GELU";
    case Activation::gelu_tanh: return "GELU(tanh)";
  }
  return "Activation";
}

Tensor ActivationLayer::forward_impl(const Tensor& x) {
  Tensor& y = reuse(y_, x.shape());
  activation_forward(kind_, x, y, alpha_);
  if (is_training()) x_ = x;
  return y;
}

Tensor ActivationLayer::backward_impl(const Tensor& dy) {
  Tensor& dx = reuse_gradient(0, dy.shape());
  activation_backward(kind_, x_, y_, dy, dx, alpha_);
  return dx;
}

}  // namespace kiln
