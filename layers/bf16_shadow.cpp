// Bf16Shadow's two users: the layer that makes the copy and the updates that keep it current.
#include "kiln/layers/bf16_shadow.h"

#include "kiln/core/ops.h"

namespace kiln {

const Tensor& bf16_weight(Parameter& weight) {
  Tensor& copy = weight.extensions.get<Bf16Shadow>().copy;
  if (!keeps_bf16_copies(weight.value.device())) return copy;
  if (!copy.defined()) {  // the first forward since the value was set: the optimizer keeps it on
    copy = Tensor::empty(weight.value.shape(), DType::bf16, weight.value.device());
    write_bf16_copy(weight.value, copy);
  }
  return copy;
}

std::vector<Tensor*> bf16_shadows(const std::vector<Parameter*>& parameters) {
  std::vector<Tensor*> copies;
  for (Parameter* p : parameters) copies.push_back(&p->extensions.get<Bf16Shadow>().copy);
  return copies;
}

}  // namespace kiln
