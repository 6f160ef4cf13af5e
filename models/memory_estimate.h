// The memory a model takes to train, from its structure: its parameters' bytes, and one batch's
// activations (each layer's output and the gradient flowing back through it), walking the
// layers of Sequentials by their output_shape, so nothing is allocated to find out. A Gpt is
// counted from the buffers its blocks keep, its per-head T x T attention weights among them.
#pragma once

#include <cstdint>

#include "kiln/core/memory_budget.h"
#include "kiln/core/shape.h"
#include "kiln/layers/module.h"
#include "kiln/models/gpt.h"

namespace kiln {

// The float32 bytes of every parameter of `model`.
std::int64_t parameter_bytes(const Module& model);

// One training step's activations for an input of `batch_input` (batch first): two float32
// tensors (output, gradient) per layer, and the input's gradient.
std::int64_t activation_bytes(Module& model, const Shape& batch_input);

// The CPU kernels' buffers one training step of `model` needs for a batch of `batch_input`
// (core/cpu_workspace.h): every matrix product of its Linears and attention, asked of the
// kernels that will run them (oneDNN's scratchpad, bf16 copies); 0 for layers without products.
std::int64_t cpu_workspace_bytes(Module& model, const Shape& batch_input);

// Parameters, their gradients, `optimizer_state_tensors` tensors per parameter (Adam: 2, SGD
// with momentum: 1), the activations of a batch of `batch_input` and the CPU's workspace.
MemoryEstimate estimate_training_memory(Module& model, const Shape& batch_input,
                                        int optimizer_state_tensors);

// A GPT of `config` counted from its shape alone, without building it (every layer counted,
// sums saturating at int64's maximum): its parameters, and what estimate_training_memory gives
// for the built model with ids of shape (B, T) on `device` (where the attention runs fused it
// keeps no T x T matrices: CausalSelfAttention::runs_fused).
std::int64_t gpt_parameter_count(const GptConfig& config);
MemoryEstimate estimate_gpt_training_memory(const GptConfig& config, const Shape& ids,
                                            int optimizer_state_tensors,
                                            Device device = Device::cpu());

}  // namespace kiln
