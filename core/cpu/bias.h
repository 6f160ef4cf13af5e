// The CPU bias bodies on raw buffers (core/cpu/bias.cpp); the CPU linear backward sums its bias
// gradient with bias_grad.
#pragma once

#include "kiln/core/cpu/backend.h"

namespace kiln::cpu {

// y (rows, cols) += bias (cols); dbias (cols) += column sums of dy (rows, cols).
void bias_add(Index rows, Index cols, const float* bias, float* y);
void bias_grad(Index rows, Index cols, const float* dy, float* dbias);

}  // namespace kiln::cpu
