// Optimizer's shared parts: parameter checks, zero_grad, and the per-parameter state slots that
// the subclasses allocate lazily, name for checkpoints and restore with full validation.
#include "kiln/optim/optimizer.h"

#include <cmath>
#include <set>

#include "kiln/core/ops.h"

namespace kiln {

void Optimizer::set_lr(float lr) {
  KILN_CHECK(std::isfinite(lr) && lr >= 0.0f,
             "{}: set_lr needs a finite learning rate >= 0, found {}", describe(), lr);
  lr_ = lr;
}

Optimizer::Optimizer(std::vector<Parameter*> parameters, float lr)
    : parameters_(std::move(parameters)), lr_(lr) {
  KILN_CHECK(!parameters_.empty(),
             "optimizer: the parameter list is empty; pass model.parameters()");
  KILN_CHECK(std::isfinite(lr) && lr >= 0.0f, "optimizer: lr must be a finite value >= 0, found {}",
             lr);
  std::set<std::string> names;
  std::set<const void*> tensors;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const Parameter* p = parameters_[i];
    KILN_CHECK(p != nullptr, "optimizer: parameter {} is null", i);
    KILN_CHECK(p->value.defined() && p->value.dtype() == DType::f32,
               "optimizer: parameter '{}' must be a float32 tensor", p->name);
    KILN_CHECK(p->grad.defined() && p->grad.shape() == p->value.shape(),
               "optimizer: parameter '{}' needs a gradient of shape {}", p->name,
               p->value.shape().str());
    // Names key the saved state, so two parameters may not share one.
    KILN_CHECK(names.insert(p->name).second,
               "optimizer: two parameters are named '{}'; state names must be unique", p->name);
    // One tensor updated twice in one step would be a race inside the GPU's fused launch.
    KILN_CHECK(tensors.insert(p->value.raw_data()).second,
               "optimizer: parameter '{}' is the tensor of an earlier parameter (tied weights); "
               "list it once",
               p->name);
    values_.push_back(&parameters_[i]->value);
    grads_.push_back(&parameters_[i]->grad);
  }
}

void Optimizer::step() {
  update();
  ++steps_;
}

void Optimizer::zero_grad() {
  for (Parameter* p : parameters_) fill(p->grad, 0.0f);
}

void Optimizer::prepare(StateSlots& slots, bool zero) const {
  if (slots.tensors.empty()) {
    for (const Tensor* value : values_)
      slots.tensors.push_back(zero ? Tensor::zeros(value->shape(), DType::f32, value->device())
                                   : Tensor::empty(value->shape(), DType::f32, value->device()));
  } else {
    for (std::size_t i = 0; i < values_.size(); ++i)
      if (slots.tensors[i].device() != values_[i]->device())
        slots.tensors[i] = slots.tensors[i].to(values_[i]->device());
  }
  slots.pointers.clear();
  for (Tensor& t : slots.tensors) slots.pointers.push_back(&t);
}

void Optimizer::add_state(std::map<std::string, Tensor>& out, const StateSlots& slots) const {
  for (std::size_t i = 0; i < slots.tensors.size(); ++i)
    out.emplace(parameters_[i]->name + "." + slots.suffix, slots.tensors[i]);
}

void Optimizer::load_slots(const std::map<std::string, Tensor>& state, std::int64_t steps,
                           const std::vector<StateSlots*>& expected,
                           const std::vector<StateSlots*>& all) {
  KILN_CHECK(steps >= 0, "{}: load_state needs a step count >= 0, found {}", describe(), steps);
  // Validate everything before touching anything, so a bad checkpoint leaves the optimizer as
  // it was.
  std::set<std::string> wanted;
  for (const StateSlots* slots : expected)
    for (const Parameter* p : parameters_) {
      const std::string name = p->name + "." + slots->suffix;
      wanted.insert(name);
      const auto it = state.find(name);
      KILN_CHECK(it != state.end(),
                 "{}: the saved state has no '{}' (after {} steps every parameter has one); was it "
                 "saved by another optimizer or model?",
                 describe(), name, steps);
      const Tensor& t = it->second;
      KILN_CHECK(t.defined() && t.dtype() == DType::f32 && t.shape() == p->value.shape(),
                 "{}: saved state '{}' must be float32 of shape {}, found {}", describe(), name,
                 p->value.shape().str(),
                 t.defined() ? t.str() : std::string("an undefined tensor"));
    }
  for (const auto& [name, t] : state)
    KILN_CHECK(wanted.count(name) == 1,
               "{}: unexpected saved state '{}' (after {} steps this optimizer holds {} tensors)",
               describe(), name, steps, wanted.size());

  for (StateSlots* slots : all) {
    slots->tensors.clear();
    slots->pointers.clear();
  }
  for (StateSlots* slots : expected) {
    prepare(*slots, false);
    for (std::size_t i = 0; i < parameters_.size(); ++i)
      copy(state.at(parameters_[i]->name + "." + slots->suffix), slots->tensors[i]);
  }
  steps_ = steps;
}

}  // namespace kiln
