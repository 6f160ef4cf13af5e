// Memory estimates from a model's structure (models/memory_estimate.h).
#include "kiln/models/memory_estimate.h"

#include <limits>

#include "kiln/core/checked_math.h"
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
// backward's gradients are as many again (22 N C + S, the softmax's gradient among them). A
// dropout of p > 0 adds its output, mask and gradient: 3 S after the softmax, 3 N C after each
// projection. Around the blocks: the embedding sum, ln_f and their gradients (4 N C) and the
// logits with their gradient (2 N V). LayerNorm's row statistics (2 N each) are too small to
// count.
std::int64_t gpt_activation_bytes(const Gpt& gpt, const Shape& ids) {
  const GptConfig& c = gpt.config();
  const std::int64_t b = ids.rank() > 0 ? ids[0] : 1, t = ids.rank() > 1 ? ids[1] : c.context;
  const std::int64_t rows = times(b, t), nc = times(rows, c.width);
  const std::int64_t s = times(times(times(b, c.heads), t), t);
  const bool dropout = c.dropout > 0.0f;
  const std::int64_t block =
      saturating_add(times(nc, dropout ? 50 : 44), times(s, dropout ? 5 : 2));
  const std::int64_t floats =
      saturating_add(saturating_add(times(block, c.layers), times(nc, dropout ? 7 : 4)),
                     times(times(rows, c.vocabulary), 2));
  return times(floats, kFloatBytes);
}

// Adds each layer's two tensors to `bytes`; returns the output shape of `module` for `input`.
Shape add_layer_activations(Module& module, const Shape& input, std::int64_t& bytes) {
  if (const auto* gpt = dynamic_cast<const Gpt*>(&module)) {
    bytes = saturating_add(bytes, gpt_activation_bytes(*gpt, input));
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

}  // namespace

std::int64_t parameter_bytes(const Module& model) {
  std::int64_t bytes = 0;
  for (const Parameter* p : model.parameters())
    bytes = saturating_add(bytes, times(p->value.numel(), kFloatBytes));
  return bytes;
}

std::int64_t activation_bytes(Module& model, const Shape& batch_input) {
  std::int64_t bytes = times(batch_input.numel(), kFloatBytes);  // the input's gradient
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
  return e;
}

}  // namespace kiln
