// The CPU activation bodies on raw buffers (core/cpu/activation.cpp); the CPU linear bodies
// apply their ReLU with them.
#pragma once

#include "kiln/core/cpu/backend.h"
#include "kiln/core/ops/activation_record.h"

namespace kiln::cpu {

void activation_forward(const rec::ActivationForward& o);
void activation_backward(const rec::ActivationBackward& o);

}  // namespace kiln::cpu
