// The gradient-ready hook: reports, in every backward from now on, each module of a tree without
// children (a layer) once its parameter gradients are final for the step, exactly once per
// backward at any depth, so that data-parallel training starts all-reducing a layer's gradients
// while earlier layers compute (training/step_runner.cpp).
#pragma once

#include <functional>

#include "kiln/layers/module.h"

namespace kiln {

// A layer is reported after its backward, or when a container skips that backward (a ReLU fused
// into the Linear before it, a leading layer without parameters when no input gradient is
// wanted). The hook is a ModuleExtension (layers/module_extension.h): children added later
// inherit it.
using GradientReadyHook = std::function<void(Module& layer)>;

// Replaces the gradient-ready hook of `tree` and every module below it with `hook`; an empty hook
// removes it. A module holding parameters of its own besides children is refused (its
// parameters() would repeat its children's).
void set_gradient_ready_hook(Module& tree, GradientReadyHook hook);

}  // namespace kiln
