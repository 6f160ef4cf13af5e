// Sgd: checks its options as torch.optim.SGD does, keeps the momentum buffers and runs the fused
// sgd_step op (core/ops/optimizer_ops.h) once per step.
#include "kiln/optim/sgd.h"

#include <cmath>

#include "kiln/core/ops.h"
#include "kiln/layers/bf16_shadow.h"

namespace kiln {

Sgd::Sgd(std::vector<Parameter*> parameters, float lr, SgdOptions options)
    : RecordableOptimizer(std::move(parameters), lr), options_(options),
      bf16_shadows_(bf16_shadows(parameters_)) {
  const SgdOptions& o = options_;
  KILN_CHECK(std::isfinite(o.momentum) && o.momentum >= 0.0f,
             "SGD: momentum must be >= 0, found {}", o.momentum);
  KILN_CHECK(std::isfinite(o.dampening), "SGD: dampening must be finite, found {}", o.dampening);
  KILN_CHECK(std::isfinite(o.weight_decay) && o.weight_decay >= 0.0f,
             "SGD: weight_decay must be >= 0, found {}", o.weight_decay);
  KILN_CHECK(!o.nesterov || (o.momentum > 0.0f && o.dampening == 0.0f),
             "SGD: Nesterov momentum requires momentum > 0 and dampening 0, found momentum {} and "
             "dampening {}",
             o.momentum, o.dampening);
}

void Sgd::update_from(const StepScalarRows* per_step) {
  const SgdConfig config{lr_, options_.momentum, options_.dampening, options_.weight_decay,
                         options_.nesterov};
  const bool with_momentum = options_.momentum != 0.0f;
  // The first step with momentum is the one that finds no buffers (PyTorch: buf is None); the
  // buffers need no zeroing since that step only writes them.
  const bool first_step = with_momentum && momentum_.tensors.empty();
  if (with_momentum) prepare(momentum_, false);
  sgd_step(
      values_, grads_,
      with_momentum ? std::span<Tensor* const>(momentum_.pointers) : std::span<Tensor* const>(),
      config, first_step, per_step, bf16_shadows_);
}

void Sgd::write_step_scalars(float lr, std::int64_t, float* row) const { row[0] = lr; }

std::map<std::string, Tensor> Sgd::state() const {
  std::map<std::string, Tensor> out;
  add_state(out, momentum_);
  return out;
}

void Sgd::load_state(const std::map<std::string, Tensor>& state, std::int64_t steps) {
  const bool has_buffers = options_.momentum != 0.0f && steps > 0;
  load_slots(state, steps,
             has_buffers ? std::vector<StateSlots*>{&momentum_} : std::vector<StateSlots*>{},
             {&momentum_});
}

std::string Sgd::describe() const {
  return fmt::format("SGD(lr={}, momentum={}, dampening={}, weight_decay={}{})", lr_,
                     options_.momentum, options_.dampening, options_.weight_decay,
                     options_.nesterov ? ", nesterov" : "");
}

}  // namespace kiln
