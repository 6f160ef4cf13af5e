// Optimizer: updates parameters from their accumulated gradients. Subclasses follow PyTorch's
// update equations exactly (each header writes them out). State (momentum buffers, moments,
// step count) is exposed as named tensors so checkpoints can save it and resume exactly. The
// update recorded into a CUDA graph is an extension of its own (optim/recordable_optimizer.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kiln/core/ops.h"
#include "kiln/core/tensor.h"
#include "kiln/layers/module.h"

namespace kiln {

class Optimizer {
 public:
  explicit Optimizer(std::vector<Parameter*> parameters, float lr);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update of every parameter from its gradient (on the GPU: one fused launch).
  void step();
  void zero_grad();
  float lr() const { return lr_; }
  // Throws unless lr is finite and >= 0 (an inf would make every weight inf).
  void set_lr(float lr);
  std::int64_t steps() const { return steps_; }
  const std::vector<Parameter*>& parameters() const { return parameters_; }

  // Named state tensors ("layers.0.weight.momentum_buffer", ...) on the parameters' device, plus
  // the step count. load_state checks names and shapes and copies values in. Before the first
  // step there is no state (as in PyTorch): state() is empty and load_state({}, 0) restarts.
  // state() shares memory with the optimizer: copy it (to the host) before the next step.
  virtual std::map<std::string, Tensor> state() const = 0;
  virtual void load_state(const std::map<std::string, Tensor>& state, std::int64_t steps) = 0;
  virtual std::string describe() const = 0;

 protected:
  // One update from the gradients at lr_ and the state so far; leaves steps_ to the caller.
  virtual void update() = 0;

  // One state tensor per parameter ("exp_avg" of every parameter, ...): undefined until the
  // first step, then shaped like the parameters and on their device.
  struct StateSlots {
    const char* suffix;  // the state name is "<parameter name>.<suffix>"
    std::vector<Tensor> tensors;
    std::vector<Tensor*> pointers;  // into tensors, for the multi-tensor ops
  };

  // Allocates `slots` on the parameters' device (zero-filled when `zero`) on first use, or moves
  // them after the parameters moved; otherwise touches nothing, so steady steps allocate nothing.
  void prepare(StateSlots& slots, bool zero) const;
  void add_state(std::map<std::string, Tensor>& out, const StateSlots& slots) const;
  // Checks that `state` holds exactly "<parameter>.<suffix>" for every parameter and every slot
  // kind in `expected` (each float32 shaped like its parameter), then copies the values in,
  // from any device. Slot kinds not expected are released (back to "no state yet").
  void load_slots(const std::map<std::string, Tensor>& state, std::int64_t steps,
                  const std::vector<StateSlots*>& expected, const std::vector<StateSlots*>& all);

  std::vector<Parameter*> parameters_;
  // The parameters' values and gradients as tensor lists for the multi-tensor ops; a Parameter
  // outlives the optimizer, so these addresses stay valid even when to() replaces the tensors.
  std::vector<Tensor*> values_;
  std::vector<const Tensor*> grads_;
  float lr_;
  std::int64_t steps_ = 0;
};

}  // namespace kiln
