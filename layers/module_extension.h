// ModuleExtension: how a feature follows the events of a module tree without a place in Module
// (the gradient-ready hook of data-parallel training: layers/gradient_ready_hook.h). Attached to a
// module (Module::attach_extension), an extension joins every module below it as well, now and
// registered later, as to, train and parameters recurse; a layer of one's own needs nothing for it.
#pragma once

namespace kiln {

class Module;

class ModuleExtension {
 public:
  virtual ~ModuleExtension() = default;

  // `module` joined the tree this extension is attached to: at attach_extension, and again when
  // it registers a child. Throws to refuse a module it cannot serve.
  virtual void joined(const Module& module) { (void)module; }
  // `module`'s backward finished, or the container running it skipped it (Module::skip_backward):
  // for a module without children, its parameter gradients are then final for the step.
  virtual void backward_done(Module& module) = 0;
};

}  // namespace kiln
