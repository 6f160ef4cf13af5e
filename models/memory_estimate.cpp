// Memory estimates from a model's structure (models/memory_estimate.h).
#include "kiln/models/memory_estimate.h"

#include <limits>

#include "kiln/core/checked_math.h"
#include "kiln/core/cpu_workspace.h"
#include "kiln/layers/linear.h"
#include "kiln/models/gpt.h"
#include "kiln/models/sequential.h"

namespace kiln {

namespace {

constexpr std::int64_t kFloatBytes = 4;

std::int64_t times(std::int64_t bytes, std::int64_t k) {
  return checked_mul(bytes, k).value_or(std::numeric_limits<std::int64_t>::max());
}

// A GPT's training step for ids (B, T), counted from the buffers its layers keep (per block, with
// N = B T rows of width C and S = B H T T attention weights): forward keeps ln_1, c_attn's 3 C,
// the heads' 3 C, the softmax S, the heads' output, their merge, c_proj, the residual sum,
// ln_2, c_fc's and the GELU's 4 C each, the MLP's projection and the block's output: 22 N C + S;
// backward's gradients are as many again (22 N C + S, the softmax's gradient among them), but
// the blocks share them (share_block_gradients), so one block's are kept whatever the depth. A
// dropout of p > 0 adds its output and mask (2 S after the softmax, 2 N C after each projection)
// and their gradients (S, and N C each). Around the blocks: the embedding sum, ln_f and their
// gradients (4 N C) and the logits with their gradient (2 N V). LayerNorm's row statistics (2 N
// each) are too small to count. Where the attention runs fused it keeps no S
// (CausalSelfAttention::runs_fused).
std::int64_t gpt_activation_bytes(const GptConfig& c, const Shape& ids, Device device) {
  const std::int64_t b = ids.rank() > 0 ? ids[0] : 1, t = ids.rank() > 1 ? ids[1] : c.context;
  const std::int64_t rows = times(b, t), nc = times(rows, c.width);
  const bool dropout = c.dropout > 0.0f;
  const bool fused_attention =
      CausalSelfAttention::runs_fused(device, t, c.width / c.heads, dropout);
  const std::int64_t s = fused_attention ? 0 : times(times(times(b, c.heads), t), t);
  const std::int64_t kept = saturating_add(times(nc, dropout ? 26 : 22), times(s, dropout ? 3 : 1));
  const std::int64_t gradients =
      saturating_add(times(nc, dropout ? 24 : 22), times(s, dropout ? 2 : 1));
  const std::int64_t blocks = saturating_add(times(kept, c.layers), c.layers > 0 ? gradients : 0);
  const std::int64_t floats = saturating_add(saturating_add(blocks, times(nc, dropout ? 7 : 4)),
                                             times(times(rows, c.vocabulary), 2));
  return times(floats, kFloatBytes);
}

// Adds each layer's two tensors to `bytes`; returns the output shape of `module` for `input`.
Shape add_layer_activations(Module& module, const Shape& input, std::int64_t& bytes) {
  if (const auto* gpt = dynamic_cast<const Gpt*>(&module)) {
    bytes = saturating_add(bytes, gpt_activation_bytes(gpt->config(), input, module.device()));
    return module.output_shape(input);
  }
  if (auto* sequential = dynamic_cast<Sequential*>(&module)) {
    Shape shape = input;
    for (std::size_t i = 0; i < sequential->size(); ++i)
      shape = add_layer_activations((*sequential)[i], shape, bytes);
    return shape;
  }
  const Shape output = module.output_shape(input);
  bytes = saturating_add(bytes, times(times(output.numel(), kFloatBytes), 2));
  return output;
}

// The products of a GPT's step for ids (B, T): per block (all alike) c_attn, the attention's
// six batched products (core/cpu/..., layers/causal_self_attention.cpp), c_proj, c_fc and the
// MLP's projection; then the head tied to wte.
void add_gpt_products(const GptConfig& c, const Shape& ids, CpuWorkspace& w) {
  const std::int64_t b = ids.rank() > 0 ? ids[0] : 1, t = ids.rank() > 1 ? ids[1] : c.context;
  const std::int64_t rows = times(b, t), bh = times(b, c.heads),
                     d = c.width / std::max<std::int64_t>(c.heads, 1);
  if (c.layers > 0) {
    const std::int64_t n = c.layers;
    w.add_linear(rows, c.width, 3 * c.width, true, n);
    w.add({.batch = bh, .m = t, .n = t, .k = d, .trans_b = true});  // q kᵀ; dP = dy vᵀ
    w.add({.batch = bh, .m = t, .n = d, .k = t});                   // P v; dq = dS k
    w.add({.batch = bh, .m = t, .n = d, .k = t, .trans_a = true});  // dv = Pᵀ dy; dk = dSᵀ q
    w.add_linear(rows, c.width, c.width, true, n);
    w.add_linear(rows, c.width, 4 * c.width, true, n);
    w.add_linear(rows, 4 * c.width, c.width, true, n);
  }
  w.add_linear(rows, c.width, c.vocabulary, false, 1, false);  // the head reads wte itself
}

// Adds the products of `module` for `input`; returns its output shape.
Shape add_products(Module& module, const Shape& input, CpuWorkspace& w) {
  if (const auto* gpt = dynamic_cast<const Gpt*>(&module)) {
    add_gpt_products(gpt->config(), input, w);
    return module.output_shape(input);
  }
  if (auto* sequential = dynamic_cast<Sequential*>(&module)) {
    Shape shape = input;
    for (std::size_t i = 0; i < sequential->size(); ++i)
      shape = add_products((*sequential)[i], shape, w);
    return shape;
  }
  const Shape output = module.output_shape(input);
  if (auto* linear = dynamic_cast<Linear*>(&module)) {
    const std::int64_t in = linear->weight().value.size(1), out = linear->weight().value.size(0);
    w.add_linear(input.numel() / std::max<std::int64_t>(in, 1), in, out, linear->bias() != nullptr);
  }
  return output;
}

}  // namespace

std::int64_t cpu_workspace_bytes(Module& model, const Shape& batch_input) {
  CpuWorkspace w;
  add_products(model, batch_input, w);
  return w.bytes();
}

std::int64_t gpt_parameter_count(const GptConfig& c) {
  // wte (tied to the head) V C (V: its padded rows), wpe T C, ln_f 2 C; per block ln_1 and ln_2 4
  // C, c_attn 3 C C + 3 C, attn.c_proj C C + C, c_fc 4 C C + 4 C, mlp.c_proj 4 C C + C: 12 C C + 13
  // C.
  const std::int64_t square = times(c.width, c.width);
  const std::int64_t block = saturating_add(times(square, 12), times(c.width, 13));
  return saturating_add(
      saturating_add(times(c.embedding_rows(), c.width), times(c.context, c.width)),
      saturating_add(times(block, c.layers), times(c.width, 2)));
}

MemoryEstimate estimate_gpt_training_memory(const GptConfig& config, const Shape& ids,
                                            int optimizer_state_tensors, Device device) {
  MemoryEstimate e;
  e.parameters = times(gpt_parameter_count(config), kFloatBytes);
  e.gradients = e.parameters;
  e.optimizer_state = times(e.parameters, optimizer_state_tensors);
  e.activations =
      saturating_add(times(ids.numel(), kFloatBytes), gpt_activation_bytes(config, ids, device));
  CpuWorkspace w;
  add_gpt_products(config, ids, w);
  e.workspace = w.bytes();
  return e;
}

std::int64_t parameter_bytes(const Module& model) {
  std::int64_t bytes = 0;
  for (const Parameter* p : model.parameters())
    bytes = saturating_add(bytes, times(p->value.numel(), kFloatBytes));
  return bytes;
}

std::int64_t activation_bytes(Module& model, const Shape& batch_input) {
  (void)batch_output_shape(model, batch_input, "estimate_training_memory");  // batch first
  std::int64_t bytes = times(batch_input.numel(), kFloatBytes);              // the input's gradient
  add_layer_activations(model, batch_input, bytes);
  return bytes;
}

MemoryEstimate estimate_training_memory(Module& model, const Shape& batch_input,
                                        int optimizer_state_tensors) {
  MemoryEstimate e;
  e.parameters = parameter_bytes(model);
  e.gradients = e.parameters;
  e.optimizer_state = times(e.parameters, optimizer_state_tensors);
  e.activations = activation_bytes(model, batch_input);
  e.workspace = cpu_workspace_bytes(model, batch_input);
  return e;
}

}  // namespace kiln
