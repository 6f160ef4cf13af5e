// Elementwise activations and their derivatives (checks in core/ops/activation.cpp; kernels in
// core/cpu/activation.cpp and core/cuda/activation.cpp).
#pragma once

#include "kiln/core/ops/activation_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// x, y: same shape -> y = f(x). alpha is LeakyReLU's negative slope.
void activation_forward(Activation f, const Tensor& x, Tensor& y, float alpha = 0.01f);
// x, y = f(x), dy, dx: same shape -> dx = dy * f'(x). dx may alias dy.
void activation_backward(Activation f, const Tensor& x, const Tensor& y, const Tensor& dy,
                         Tensor& dx, float alpha = 0.01f);

namespace op {

struct ActivationForward {
  static constexpr const char* kName = "activation_forward";
  Activation f;
  const Tensor& x;
  Tensor& y;
  float alpha;
  rec::ActivationForward record{};
  void check();
  Device device() const { return x.device(); }
};

struct ActivationBackward {
  static constexpr const char* kName = "activation_backward";
  Activation f;
  const Tensor& x;
  const Tensor& y;
  const Tensor& dy;
  Tensor& dx;
  float alpha;
  rec::ActivationBackward record{};
  void check();
  Device device() const { return x.device(); }
};

}  // namespace op
}  // namespace kiln
