// Adam and AdamW, as torch.optim.Adam and torch.optim.AdamW (amsgrad off). The moments are
// allocated on the parameters' device at the first step; on a GPU a step is one fused launch per
// 64 parameters (adam_step in core/ops.h), also with two weight-decay groups (AdamOptions::decays).
#pragma once

#include <cstdint>
#include <functional>

#include "kiln/optim/recordable_optimizer.h"

namespace kiln {

// Parameter groups: `decays` picks the parameters weight_decay applies to; the others step with
// weight decay 0, as the second of PyTorch's two param_groups in nanoGPT's configure_optimizers
// (models/gpt_weight_decay.h has the GPT rule).
struct AdamOptions {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float weight_decay = 0.0f;
  bool decoupled = false;  // true: AdamW's decoupled weight decay
  // True for the parameters weight_decay applies to; empty: every parameter (one group).
  std::function<bool(const Parameter&)> decays;
};

// For each parameter p with gradient g, at step t = 1, 2, ... (moments m, v start at zero):
//   AdamW (decoupled): p = p * (1 - lr * weight_decay)
//   Adam:              g = g + weight_decay * p
//   m = beta1 * m + (1 - beta1) * g                        (as m.lerp_(g, 1 - beta1))
//   v = beta2 * v + (1 - beta2) * g * g
//   p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
class Adam : public RecordableOptimizer {
 public:
  Adam(std::vector<Parameter*> parameters, float lr = 1e-3f, AdamOptions options = {});

  std::int32_t step_scalar_width() const override;
  void write_step_scalars(float lr, std::int64_t ahead, float* row) const override;
  // "<parameter>.exp_avg" and "<parameter>.exp_avg_sq" for every parameter after a step.
  std::map<std::string, Tensor> state() const override;
  void load_state(const std::map<std::string, Tensor>& state, std::int64_t steps) override;
  std::string describe() const override;
  const AdamOptions& options() const { return options_; }
  // Whether parameter i (of parameters()) takes weight_decay, and how many do.
  bool decays(std::size_t i) const { return decayed_.empty() || decayed_[i] != 0; }
  std::size_t decayed_count() const;

 private:
  void update_from(const StepScalarRows* per_step) override;
  AdamConfig config(float lr) const;

  AdamOptions options_;
  StateSlots exp_avg_{"exp_avg", {}, {}};
  StateSlots exp_avg_sq_{"exp_avg_sq", {}, {}};
  std::vector<Tensor*> bf16_shadows_;  // rewritten in the update's pass (layers/bf16_shadow.h)
  std::vector<std::uint8_t> decayed_;  // per parameter, 1: decayed; empty: all (no groups)
};

// AdamW: Adam with decoupled weight decay, PyTorch's default weight_decay of 0.01.
class AdamW : public Adam {
 public:
  AdamW(std::vector<Parameter*> parameters, float lr = 1e-3f, float weight_decay = 1e-2f,
        AdamOptions options = {});
};

}  // namespace kiln
