// SGD with momentum, dampening, Nesterov momentum and (L2) weight decay, as torch.optim.SGD.
// The momentum buffers are allocated on the parameters' device at the first step; on a GPU a
// step is one fused launch per 64 parameters (sgd_step in core/ops.h).
#pragma once

#include "kiln/optim/recordable_optimizer.h"

namespace kiln {

struct SgdOptions {
  float momentum = 0.0f;
  float dampening = 0.0f;
  float weight_decay = 0.0f;
  bool nesterov = false;  // needs momentum > 0 and dampening 0
};

// For each parameter p with gradient g, at step t (from 0):
//   g   = g + weight_decay * p
//   if momentum != 0:
//     buf = g                                              (t = 0)
//     buf = momentum * buf + (1 - dampening) * g           (t > 0)
//     g   = nesterov ? g + momentum * buf : buf
//   p   = p - lr * g
class Sgd : public RecordableOptimizer {
 public:
  Sgd(std::vector<Parameter*> parameters, float lr, SgdOptions options = {});

  std::int32_t step_scalar_width() const override { return 1; }
  void write_step_scalars(float lr, std::int64_t ahead, float* row) const override;
  // "<parameter>.momentum_buffer" for every parameter once a step has run with momentum != 0.
  std::map<std::string, Tensor> state() const override;
  void load_state(const std::map<std::string, Tensor>& state, std::int64_t steps) override;
  std::string describe() const override;
  const SgdOptions& options() const { return options_; }

 private:
  void update_from(const StepScalarRows* per_step) override;

  SgdOptions options_;
  StateSlots momentum_{"momentum_buffer", {}, {}};
  std::vector<Tensor*> bf16_shadows_;  // rewritten in the update's pass (layers/bf16_shadow.h)
};

}  // namespace kiln
