// CUDA activations and their derivatives, elementwise over n floats, with the very formulas of
// core/cpu/activation.cpp: sigmoid = 1 / (1 + exp(-x)), GELU exact as x * 0.5 erfc(-x / sqrt 2),
// GELU tanh as x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)) (= 0.5 x (1 + tanh(...)));
// sigmoid and tanh differentiate through y, ReLU/LeakyReLU/GELU through x. dx may alias dy (each
// element is read before it is written), so no pointer is __restrict__.
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/ops/activation_record.h"

namespace kiln::cuda {

namespace {

constexpr float kSqrtHalf = 0.70710678118654752f;    // 1 / sqrt(2)
constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // 1 / sqrt(2 pi)

// Phi(x) through erfc: 0.5 * (1 + erf(x / sqrt 2)) cancels for x < -2.
__device__ __forceinline__ float normal_cdf(float x) { return 0.5f * erfcf(-x * kSqrtHalf); }

constexpr float kSqrt2OverPi = 0.79788456080286536f;  // sqrt(2 / pi)
constexpr float kGeluCubic = 0.044715f;
__device__ __forceinline__ float gelu_tanh_gate(float x) {
  return 1.0f / (1.0f + expf(-2.0f * kSqrt2OverPi * (x + kGeluCubic * x * x * x)));
}

template <Activation F> __device__ __forceinline__ float forward_of(float x, float alpha) {
  if constexpr (F == Activation::relu) return x < 0.0f ? 0.0f : x;  // lets a NaN through
  if constexpr (F == Activation::leaky_relu) return x > 0.0f ? x : alpha * x;
  if constexpr (F == Activation::sigmoid) return 1.0f / (1.0f + expf(-x));
  if constexpr (F == Activation::tanh) return tanhf(x);
  if constexpr (F == Activation::gelu) return x * normal_cdf(x);
  if constexpr (F == Activation::gelu_tanh) return x * gelu_tanh_gate(x);
}

template <Activation F>
__device__ __forceinline__ float backward_of(float x, float y, float dy, float alpha) {
  if constexpr (F == Activation::relu) return x > 0.0f ? dy : 0.0f;
  if constexpr (F == Activation::leaky_relu) return x > 0.0f ? dy : alpha * dy;
  if constexpr (F == Activation::sigmoid) return dy * y * (1.0f - y);
  if constexpr (F == Activation::tanh) return dy * (1.0f - y * y);
  if constexpr (F == Activation::gelu) {
    const float pdf = kInvSqrt2Pi * expf(-0.5f * x * x);  // d/dx [x Phi(x)] = Phi(x) + x phi(x)
    return dy * (normal_cdf(x) + x * pdf);
  }
  if constexpr (F == Activation::gelu_tanh) {
    const float s = gelu_tanh_gate(x);
    const float du = kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * x * x);
    return dy * (s + 2.0f * x * s * (1.0f - s) * du);
  }
}

template <Activation F> __global__ void forward_kernel(rec::ActivationForward o) {
  for (Index i = detail::grid_start(); i < o.n; i += detail::grid_stride())
    o.y[i] = forward_of<F>(o.x[i], o.alpha);
}

template <Activation F> __global__ void backward_kernel(rec::ActivationBackward o) {
  for (Index i = detail::grid_start(); i < o.n; i += detail::grid_stride())
    o.dx[i] = backward_of<F>(o.x[i], o.y[i], o.dy[i], o.alpha);
}

}  // namespace

// One instantiation per activation, so the kernels carry no per-element switch.
void activation_forward(const rec::ActivationForward& o, cudaStream_t stream) {
  using A = Activation;
  switch (o.f) {
    case A::relu: return detail::launch_over_n(forward_kernel<A::relu>, o, stream);
    case A::leaky_relu: return detail::launch_over_n(forward_kernel<A::leaky_relu>, o, stream);
    case A::sigmoid: return detail::launch_over_n(forward_kernel<A::sigmoid>, o, stream);
    case A::tanh: return detail::launch_over_n(forward_kernel<A::tanh>, o, stream);
    case A::gelu: return detail::launch_over_n(forward_kernel<A::gelu>, o, stream);
    case A::gelu_tanh: return detail::launch_over_n(forward_kernel<A::gelu_tanh>, o, stream);
  }
}

void activation_backward(const rec::ActivationBackward& o, cudaStream_t stream) {
  using A = Activation;
  switch (o.f) {
    case A::relu: return detail::launch_over_n(backward_kernel<A::relu>, o, stream);
    case A::leaky_relu: return detail::launch_over_n(backward_kernel<A::leaky_relu>, o, stream);
    case A::sigmoid: return detail::launch_over_n(backward_kernel<A::sigmoid>, o, stream);
    case A::tanh: return detail::launch_over_n(backward_kernel<A::tanh>, o, stream);
    case A::gelu: return detail::launch_over_n(backward_kernel<A::gelu>, o, stream);
    case A::gelu_tanh: return detail::launch_over_n(backward_kernel<A::gelu_tanh>, o, stream);
  }
}

}  // namespace kiln::cuda
