// Bf16Shadow: a parameter's bfloat16 copy for the matrix products of MatmulPrecision::bf16 on a CPU
// with bf16 instructions (core/ops/bf16_copy.h, keeps_bf16_copies). A ParameterExtension
// (layers/parameter_extension.h): made by the layer at its first forward (bf16_weight), rewritten
// by the fused optimizer updates in the same pass as each update (bf16_shadows: Sgd, Adam), and
// dropped whenever else the value is written, so the layer makes it anew.
#pragma once

#include <vector>

#include "kiln/layers/module.h"

namespace kiln {

struct Bf16Shadow final : ParameterExtension {
  Tensor copy;  // undefined while none is kept
  void value_changed() override { copy = Tensor(); }
};

// The weight's copy where layers keep one, made when missing; otherwise whatever copy it holds
// (undefined unless one was kept before).
const Tensor& bf16_weight(Parameter& weight);
// Each parameter's copy, in order, as the fused updates take them (core/ops/optimizer_ops.h):
// an update rewrites those defined. The addresses stay valid for the parameters' life.
std::vector<Tensor*> bf16_shadows(const std::vector<Parameter*>& parameters);

}  // namespace kiln
