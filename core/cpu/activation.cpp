// CPU activations and their derivatives, elementwise over n floats. dx may alias dy: each
// element is read before it is written. Sigmoid and tanh differentiate through the output y
// (as PyTorch does); ReLU, LeakyReLU and GELU through the input x. GELU is the exact erf form
// (PyTorch's default); GELU tanh is PyTorch's approximate='tanh'.
#include <cmath>

#include "kiln/core/cpu/activation.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/cpu/vector_math.h"
#include "kiln/core/ops/activation.h"

namespace kiln::cpu {

namespace {

constexpr float kSqrtHalf = 0.70710678118654752f;    // 1 / sqrt(2)
constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // 1 / sqrt(2 pi)

// Phi(x), the standard normal CDF. 0.5 * erfc(-x / sqrt 2) rather than 0.5 * (1 + erf(x / sqrt 2)):
// the latter cancels catastrophically for x < -2.
inline float normal_cdf(float x) { return 0.5f * std::erfc(-x * kSqrtHalf); }

// GELU tanh is 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), computed as x sigmoid(2u)
// (the same function: 1 + tanh(u) = 2 sigmoid(2u)), which does not cancel where tanh(u) nears -1.
// It is GPT's, on every MLP element, so it runs chunk by chunk over Eigen's vectorised exp
// (core/cpu/vector_math.h).
constexpr float kSqrt2OverPi = 0.79788456080286536f;  // sqrt(2 / pi)
constexpr float kGeluCubic = 0.044715f;
// sigmoid(2u) = (1 + tanh(u)) / 2 with u = sqrt(2/pi) (x + 0.044715 x^3): the tanh GELU's gate.
// exp overflows to inf for very negative x, giving exactly 0: no NaN.
// gate[i] = sigmoid(2u) of x[i] for one chunk (count <= kChunk).
inline void gelu_tanh_gates(Index count, const float* x, float* gate) {
  const ConstFloatArray v = array_of(x, count);
  FloatArray g = array_of(gate, count);
  g = (-2.0f * kSqrt2OverPi) * (v + kGeluCubic * v.cube());
  exp_into(count, gate, gate);
  g = (1.0f + g).inverse();
}

void gelu_tanh_forward(Index n, const float* x, float* y) {
  for_each_chunk(n, [=](Index begin, Index count) {
    float gate[kChunk];
    gelu_tanh_gates(count, x + begin, gate);
    array_of(y + begin, count) = array_of(x + begin, count) * array_of(gate, count);
  });
}

// d/dx [x s(2u)] = s + 2 x s (1 - s) u', u' = sqrt(2/pi) (1 + 3 * 0.044715 x^2).
void gelu_tanh_backward(Index n, const float* x, const float* dy, float* dx) {
  for_each_chunk(n, [=](Index begin, Index count) {
    float gate[kChunk];
    gelu_tanh_gates(count, x + begin, gate);
    const ConstFloatArray v = array_of(x + begin, count), s(gate, count);
    const ConstFloatArray g = array_of(dy + begin, count);
    // Elementwise: each dx[i] is written after its dy[i] is read, so dx may alias dy.
    array_of(dx + begin, count) =
        g * (s + 2.0f * v * s * (1.0f - s) * (kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * v * v)));
  });
}

}  // namespace

void activation_forward(const rec::ActivationForward& o) {
  const Index n = o.n;
  const float* x = o.x;
  float* y = o.y;
  const float alpha = o.alpha;
  switch (o.f) {
    case Activation::relu:
      // "x < 0 ? 0 : x" rather than "x > 0 ? x : 0" lets a NaN through, so it is not hidden.
      return for_each_index(n, [=](Index i) { y[i] = x[i] < 0.0f ? 0.0f : x[i]; });
    case Activation::leaky_relu:
      return for_each_index(n, [=](Index i) { y[i] = x[i] > 0.0f ? x[i] : alpha * x[i]; });
    case Activation::sigmoid:
      // exp(-x) overflows to inf for x < -88, giving exactly 0: no NaN.
      return for_each_index(n, [=](Index i) { y[i] = 1.0f / (1.0f + std::exp(-x[i])); });
    case Activation::tanh: return for_each_index(n, [=](Index i) { y[i] = std::tanh(x[i]); });
    case Activation::gelu:
      return for_each_index(n, [=](Index i) { y[i] = x[i] * normal_cdf(x[i]); });
    case Activation::gelu_tanh: return gelu_tanh_forward(n, x, y);
  }
}

void activation_backward(const rec::ActivationBackward& o) {
  const Index n = o.n;
  const float *x = o.x, *y = o.y, *dy = o.dy;
  float* dx = o.dx;
  const float alpha = o.alpha;
  switch (o.f) {
    case Activation::relu:
      // dy is read unconditionally: a load under the condition would keep GCC from vectorising.
      return for_each_index(n, [=](Index i) {
        const float g = dy[i];
        dx[i] = x[i] > 0.0f ? g : 0.0f;
      });
    case Activation::leaky_relu:
      return for_each_index(n, [=](Index i) { dx[i] = x[i] > 0.0f ? dy[i] : alpha * dy[i]; });
    case Activation::sigmoid:
      return for_each_index(n, [=](Index i) { dx[i] = dy[i] * y[i] * (1.0f - y[i]); });
    case Activation::tanh:
      return for_each_index(n, [=](Index i) { dx[i] = dy[i] * (1.0f - y[i] * y[i]); });
    case Activation::gelu:
      // d/dx [x Phi(x)] = Phi(x) + x phi(x).
      return for_each_index(n, [=](Index i) {
        const float pdf = kInvSqrt2Pi * std::exp(-0.5f * x[i] * x[i]);
        dx[i] = dy[i] * (normal_cdf(x[i]) + x[i] * pdf);
      });
    case Activation::gelu_tanh: return gelu_tanh_backward(n, x, dy, dx);
  }
}

namespace {

const RegisterKernel<op::ActivationForward> kForward(Backend::reference,
                                                     on_record<activation_forward>, "fp32", "kiln");
const RegisterKernel<op::ActivationBackward> kBackward(Backend::reference,
                                                       on_record<activation_backward>, "fp32",
                                                       "kiln");

}  // namespace

}  // namespace kiln::cpu
