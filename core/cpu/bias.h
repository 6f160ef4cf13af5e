// The CPU bias bodies on raw buffers (core/cpu/bias.cpp); the CPU linear backward sums its bias
// gradient with bias_grad.
#pragma once

#include "kiln/core/cpu/backend.h"
#include "kiln/core/ops/bias_record.h"

namespace kiln::cpu {

// y (rows, cols) += bias (cols); dbias (cols) += column sums of dy (rows, cols).
void bias_add(const rec::BiasAdd& o);
void bias_grad(const rec::BiasGrad& o);

}  // namespace kiln::cpu
