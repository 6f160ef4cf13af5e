// Adam / AdamW: checks the options as torch.optim.Adam does, keeps the two moments and runs the
// fused adam_step op (core/ops/optimizer_ops.h) once per step with the bias corrections of step
// steps() + 1.
#include "kiln/optim/adam.h"

#include <cmath>

#include "kiln/core/ops.h"
#include "kiln/layers/bf16_shadow.h"

namespace kiln {

Adam::Adam(std::vector<Parameter*> parameters, float lr, AdamOptions options)
    : RecordableOptimizer(std::move(parameters), lr), options_(options),
      bf16_shadows_(bf16_shadows(parameters_)) {
  const AdamOptions& o = options_;
  const char* name = o.decoupled ? "AdamW" : "Adam";
  KILN_CHECK(o.beta1 >= 0.0f && o.beta1 < 1.0f && o.beta2 >= 0.0f && o.beta2 < 1.0f,
             "{}: betas must lie in [0, 1), found ({}, {})", name, o.beta1, o.beta2);
  KILN_CHECK(std::isfinite(o.eps) && o.eps >= 0.0f, "{}: eps must be >= 0, found {}", name, o.eps);
  KILN_CHECK(std::isfinite(o.weight_decay) && o.weight_decay >= 0.0f,
             "{}: weight_decay must be >= 0, found {}", name, o.weight_decay);
  if (o.decays)
    for (const Parameter* p : parameters_) decayed_.push_back(o.decays(*p) ? 1 : 0);
}

std::size_t Adam::decayed_count() const {
  std::size_t n = 0;
  for (std::size_t i = 0; i < parameters_.size(); ++i) n += decays(i) ? 1 : 0;
  return n;
}

AdamConfig Adam::config(float lr) const {
  return {lr,           options_.beta1,        options_.beta2,
          options_.eps, options_.weight_decay, options_.decoupled};
}

void Adam::update_from(const StepScalarRows* per_step) {
  prepare(exp_avg_, true);
  prepare(exp_avg_sq_, true);
  adam_step(values_, grads_, exp_avg_.pointers, exp_avg_sq_.pointers, config(lr_), steps_ + 1,
            per_step, bf16_shadows_, decayed_);
}

std::int32_t Adam::step_scalar_width() const { return sizeof(AdamScalars) / sizeof(float); }

void Adam::write_step_scalars(float lr, std::int64_t ahead, float* row) const {
  adam_scalars_to_row(adam_scalars(config(lr), steps_ + 1 + ahead), row);
}

std::map<std::string, Tensor> Adam::state() const {
  std::map<std::string, Tensor> out;
  add_state(out, exp_avg_);
  add_state(out, exp_avg_sq_);
  return out;
}

void Adam::load_state(const std::map<std::string, Tensor>& state, std::int64_t steps) {
  const std::vector<StateSlots*> all{&exp_avg_, &exp_avg_sq_};
  load_slots(state, steps, steps > 0 ? all : std::vector<StateSlots*>{}, all);
}

std::string Adam::describe() const {
  const std::string groups = decayed_.empty()
                                 ? std::string()
                                 : fmt::format(" on {} of {} parameters, 0 on the rest",
                                               decayed_count(), parameters_.size());
  return fmt::format("{}(lr={}, betas=({}, {}), eps={}, weight_decay={}{})",
                     options_.decoupled ? "AdamW" : "Adam", lr_, options_.beta1, options_.beta2,
                     options_.eps, options_.weight_decay, groups);
}

AdamW::AdamW(std::vector<Parameter*> parameters, float lr, float weight_decay, AdamOptions options)
    : Adam(std::move(parameters), lr, [&] {
        options.weight_decay = weight_decay;
        options.decoupled = true;
        return options;
      }()) {}

}  // namespace kiln
