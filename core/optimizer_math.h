// The hyper-parameters of the optimizer ops and the per-element update formulas, written once
// for host and device: the CPU bodies (core/cpu/optimizer_ops.cpp) and the CUDA kernels
// (core/cuda/optimizer_ops.cu) call the very same expressions, so the reference and the fused
// kernels cannot drift apart. Plain structs and math only: nvcc includes this file.
#pragma once

#include <math.h>  // sqrtf, callable from host and device code alike

#include <cstdint>

#if defined(__CUDACC__)
#define KILN_OPT_HD __host__ __device__ __forceinline__
#else
#define KILN_OPT_HD inline
#endif

namespace kiln {

// torch.optim.SGD's hyper-parameters (nesterov needs momentum > 0 and dampening 0).
struct SgdConfig {
  float lr = 0.01f;
  float momentum = 0.0f;
  float dampening = 0.0f;
  float weight_decay = 0.0f;
  bool nesterov = false;
};

// torch.optim.Adam's (decoupled = false) and torch.optim.AdamW's (decoupled = true).
struct AdamConfig {
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float weight_decay = 0.0f;
  bool decoupled = false;
};

// The step-dependent scalars of one Adam step, computed on the host in double as PyTorch computes
// them in Python floats, then rounded to float for the elementwise math.
struct AdamScalars {
  float one_minus_beta1;        // lerp weight of exp_avg.lerp_(grad, 1 - beta1)
  float one_minus_beta2;        // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  float step_size;              // lr / (1 - beta1^step)
  float bias_correction2_sqrt;  // sqrt(1 - beta2^step)
  float decay;                  // AdamW: param.mul_(1 - lr * weight_decay)
};

// step counts from 1 (the first update).
inline AdamScalars adam_scalars(const AdamConfig& c, std::int64_t step) {
  const double t = static_cast<double>(step), lr = c.lr, beta1 = c.beta1, beta2 = c.beta2;
  const double bias_correction1 = 1.0 - pow(beta1, t), bias_correction2 = 1.0 - pow(beta2, t);
  return {static_cast<float>(1.0 - beta1), static_cast<float>(1.0 - beta2),
          static_cast<float>(lr / bias_correction1), static_cast<float>(sqrt(bias_correction2)),
          static_cast<float>(1.0 - lr * static_cast<double>(c.weight_decay))};
}

// One element of SGD; returns the new parameter. buf is the momentum buffer, read only after
// the first step (before it the buffer is uninitialised memory) and written when momentum > 0.
//   g = grad + weight_decay * p
//   buf = g on the first step, else momentum * buf + (1 - dampening) * g
//   g = nesterov ? g + momentum * buf : buf            (when momentum > 0)
//   p = p - lr * g
KILN_OPT_HD float sgd_update(const SgdConfig& c, bool first_step, float p, float g, float& buf) {
  if (c.weight_decay != 0.0f) g += c.weight_decay * p;
  if (c.momentum != 0.0f) {
    buf = first_step ? g : c.momentum * buf + (1.0f - c.dampening) * g;
    g = c.nesterov ? g + c.momentum * buf : buf;
  }
  return p - c.lr * g;
}

// torch.lerp's formula: the branch keeps the result exact at both ends of the weight range.
KILN_OPT_HD float lerp(float start, float end, float weight) {
  return weight < 0.5f ? start + weight * (end - start) : end - (end - start) * (1.0f - weight);
}

// One element of Adam / AdamW; returns the new parameter and updates the moments m and v.
//   AdamW: p = p * (1 - lr * wd)      Adam: g = g + wd * p
//   m = lerp(m, g, 1 - beta1)          v = beta2 * v + (1 - beta2) * g * g
//   p = p - step_size * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
KILN_OPT_HD float adam_update(const AdamConfig& c, const AdamScalars& s, float p, float g, float& m,
                              float& v) {
  if (c.weight_decay != 0.0f) {
    if (c.decoupled)
      p *= s.decay;
    else
      g += c.weight_decay * p;
  }
  m = lerp(m, g, s.one_minus_beta1);
  v = v * c.beta2 + s.one_minus_beta2 * g * g;
  const float denom = sqrtf(v) / s.bias_correction2_sqrt + c.eps;
  return p - s.step_size * (m / denom);
}

// clip_grad_norm_'s factor: max_norm / (norm + 1e-6), clamped above at 1. NaN stays NaN (as
// torch.clamp leaves it), so a non-finite norm poisons the gradients visibly.
KILN_OPT_HD float clip_coefficient(float norm_sq, float max_norm) {
  const float coef = max_norm / (sqrtf(norm_sq) + 1e-6f);
  return coef > 1.0f ? 1.0f : coef;
}

// torch.clamp: NaN passes through.
KILN_OPT_HD float clamp_value(float x, float lo, float hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

}  // namespace kiln
