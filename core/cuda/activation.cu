// CUDA activations and their derivatives, elementwise over n floats, with the very formulas of
// core/cpu/activation.cpp: sigmoid = 1 / (1 + exp(-x)), GELU exact as x * 0.5 erfc(-x / sqrt 2),
// GELU tanh as x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)) (= 0.5 x (1 + tanh(...)));
// sigmoid and tanh differentiate through y, ReLU/LeakyReLU/GELU through x. dx may alias dy (each
// element is read before it is written), so no pointer is __restrict__.
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/activation.h"
#include "kiln/core/cuda/launch.cuh"

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

template <Activation F>
__global__ void forward_kernel(Index n, const float* x, float* y, float alpha) {
  for (Index i = detail::grid_start(); i < n; i += detail::grid_stride())
    y[i] = forward_of<F>(x[i], alpha);
}

template <Activation F>
__global__ void backward_kernel(Index n, const float* x, const float* y, const float* dy, float* dx,
                                float alpha) {
  for (Index i = detail::grid_start(); i < n; i += detail::grid_stride())
    dx[i] = backward_of<F>(x[i], y[i], dy[i], alpha);
}

// One instantiation per activation, so the kernels carry no per-element switch.
template <Activation F>
void launch_forward(Index n, const float* x, float* y, float alpha, cudaStream_t stream) {
  forward_kernel<F><<<detail::blocks_for(n), detail::kThreads, 0, stream>>>(n, x, y, alpha);
  KILN_CUDA_CHECK_LAUNCH();
}

template <Activation F>
void launch_backward(Index n, const float* x, const float* y, const float* dy, float* dx,
                     float alpha, cudaStream_t stream) {
  backward_kernel<F>
      <<<detail::blocks_for(n), detail::kThreads, 0, stream>>>(n, x, y, dy, dx, alpha);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace

void activation_forward(Activation f, Index n, const float* x, float* y, float alpha,
                        cudaStream_t stream) {
  if (n == 0) return;
  switch (f) {
    case Activation::relu: return launch_forward<Activation::relu>(n, x, y, alpha, stream);
    case Activation::leaky_relu:
      return launch_forward<Activation::leaky_relu>(n, x, y, alpha, stream);
    case Activation::sigmoid: return launch_forward<Activation::sigmoid>(n, x, y, alpha, stream);
    case Activation::tanh: return launch_forward<Activation::tanh>(n, x, y, alpha, stream);
    case Activation::gelu: return launch_forward<Activation::gelu>(n, x, y, alpha, stream);
    case Activation::gelu_tanh:
      return launch_forward<Activation::gelu_tanh>(n, x, y, alpha, stream);
  }
}

void activation_backward(Activation f, Index n, const float* x, const float* y, const float* dy,
                         float* dx, float alpha, cudaStream_t stream) {
  if (n == 0) return;
  switch (f) {
    case Activation::relu: return launch_backward<Activation::relu>(n, x, y, dy, dx, alpha, stream);
    case Activation::leaky_relu:
      return launch_backward<Activation::leaky_relu>(n, x, y, dy, dx, alpha, stream);
    case Activation::sigmoid:
      return launch_backward<Activation::sigmoid>(n, x, y, dy, dx, alpha, stream);
    case Activation::tanh: return launch_backward<Activation::tanh>(n, x, y, dy, dx, alpha, stream);
    case Activation::gelu: return launch_backward<Activation::gelu>(n, x, y, dy, dx, alpha, stream);
    case Activation::gelu_tanh:
      return launch_backward<Activation::gelu_tanh>(n, x, y, dy, dx, alpha, stream);
  }
}

}  // namespace kiln::cuda
