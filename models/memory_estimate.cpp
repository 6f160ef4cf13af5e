// Memory estimates from a model's structure (models/memory_estimate.h).
#include "kiln/models/memory_estimate.h"

#include <limits>

#include "kiln/core/checked_math.h"
#include "kiln/models/sequential.h"

namespace kiln {

namespace {

constexpr std::int64_t kFloatBytes = 4;

std::int64_t times(std::int64_t bytes, std::int64_t k) {
  return checked_mul(bytes, k).value_or(std::numeric_limits<std::int64_t>::max());
}

// Adds each layer's two tensors to `bytes`; returns the output shape of `module` for `input`.
Shape add_layer_activations(Module& module, const Shape& input, std::int64_t& bytes) {
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
