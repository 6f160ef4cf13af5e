// The hyper-parameters of the optimizer ops and the per-element update formulas, written once
// for host and device: the CPU bodies (core/cpu/optimizer_ops.cpp) and the CUDA kernels
// (core/cuda/optimizer_ops.cu) call the very same expressions, so the reference and the fused
// kernels cannot drift apart. Plain structs and math only: nvcc includes this file.
#pragma once

#include <math.h>  // sqrtf, callable from host and device code alike

#include <cstdint>

#include "kiln/core/host_device.h"

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

static_assert(sizeof(AdamScalars) == 5 * sizeof(float),
              "a row of Adam's per-step scalars is 5 floats");

// An update recorded once into a CUDA graph and replayed for many steps cannot take its learning
// rate (or Adam's step-dependent scalars) as a kernel argument, which the recording fixes. It
// reads them on the device instead: row *cursor of `rows` (count rows of `width` floats: SGD's
// lr, or an AdamScalars), and the cursor then advances there, so the host writes nothing between
// replays. A cursor past the last row reads the last row; the host side (optim/step_scalars.h)
// counts the replays so that this never happens.
struct StepRowsOnDevice {
  const float* rows = nullptr;  // null: the scalars come from the host, as arguments
  std::int32_t count = 0;
  std::int32_t width = 0;
  std::int32_t* cursor = nullptr;
};

KILN_HOST_DEVICE const float* current_row(const StepRowsOnDevice& r) {
  const std::int32_t i = *r.cursor;
  return r.rows + static_cast<std::int64_t>(i < r.count ? i : r.count - 1) * r.width;
}

// An AdamScalars as a row of 5 floats and back, in field order.
KILN_HOST_DEVICE AdamScalars adam_scalars_from_row(const float* row) {
  return {row[0], row[1], row[2], row[3], row[4]};
}
inline void adam_scalars_to_row(const AdamScalars& s, float* row) {
  const float fields[5] = {s.one_minus_beta1, s.one_minus_beta2, s.step_size,
                           s.bias_correction2_sqrt, s.decay};
  for (int i = 0; i < 5; ++i) row[i] = fields[i];
}

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
KILN_HOST_DEVICE float sgd_update(const SgdConfig& c, bool first_step, float p, float g,
                                  float& buf) {
  if (c.weight_decay != 0.0f) g += c.weight_decay * p;
  if (c.momentum != 0.0f) {
    buf = first_step ? g : c.momentum * buf + (1.0f - c.dampening) * g;
    g = c.nesterov ? g + c.momentum * buf : buf;
  }
  return p - c.lr * g;
}

// torch.lerp's formula: the branch keeps the result exact at both ends of the weight range.
KILN_HOST_DEVICE float lerp(float start, float end, float weight) {
  return weight < 0.5f ? start + weight * (end - start) : end - (end - start) * (1.0f - weight);
}

// One element of Adam / AdamW; returns the new parameter and updates the moments m and v.
//   AdamW: p = p * (1 - lr * wd)      Adam: g = g + wd * p
//   m = lerp(m, g, 1 - beta1)          v = beta2 * v + (1 - beta2) * g * g
//   p = p - step_size * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
KILN_HOST_DEVICE float adam_update(const AdamConfig& c, const AdamScalars& s, float p, float g,
                                   float& m, float& v) {
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

// The config of a tensor outside the decayed group (adam_step's decayed flag 0): weight decay 0
// skips the decay term of adam_update entirely, so such a tensor steps exactly as in a PyTorch
// parameter group of weight_decay 0.
KILN_HOST_DEVICE AdamConfig config_for_tensor(const AdamConfig& c, bool decayed) {
  AdamConfig out = c;
  if (!decayed) out.weight_decay = 0.0f;
  return out;
}

// clip_grad_norm_'s factor: max_norm / (norm + 1e-6), clamped above at 1. NaN stays NaN (as
// torch.clamp leaves it), so a non-finite norm poisons the gradients visibly.
KILN_HOST_DEVICE float clip_coefficient(float norm_sq, float max_norm) {
  const float coef = max_norm / (sqrtf(norm_sq) + 1e-6f);
  return coef > 1.0f ? 1.0f : coef;
}

// torch.clamp: NaN passes through.
KILN_HOST_DEVICE float clamp_value(float x, float lo, float hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

}  // namespace kiln
