// The CPU activation bodies on raw buffers (core/cpu/activation.cpp); the CPU linear bodies
// apply their ReLU with them.
#pragma once

#include "kiln/core/cpu/backend.h"
#include "kiln/core/op_kinds.h"

namespace kiln::cpu {

void activation_forward(Activation f, Index n, const float* x, float* y, float alpha);
void activation_backward(Activation f, Index n, const float* x, const float* y, const float* dy,
                         float* dx, float alpha);

}  // namespace kiln::cpu
