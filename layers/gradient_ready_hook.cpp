// set_gradient_ready_hook: the hook as a ModuleExtension that reports the modules without children.
#include "kiln/layers/gradient_ready_hook.h"

#include "kiln/core/error.h"

namespace kiln {

namespace {

class GradientReadyReport final : public ModuleExtension {
 public:
  explicit GradientReadyReport(GradientReadyHook hook) : hook_(std::move(hook)) {}

  void joined(const Module& module) override {
    const std::size_t own = module.parameters(false).size();
    KILN_CHECK(module.child_count() == 0 || own == 0,
               "{}: a gradient-ready hook reports modules without children, whose parameters() are "
               "their own; this one holds {} parameters besides {} children: register those "
               "parameters in a child module of their own",
               module.describe(), own, module.child_count());
  }

  void backward_done(Module& module) override {
    if (module.child_count() == 0) hook_(module);
  }

 private:
  GradientReadyHook hook_;
};

}  // namespace

void set_gradient_ready_hook(Module& tree, GradientReadyHook hook) {
  tree.detach_extensions([](const ModuleExtension& e) {
    return dynamic_cast<const GradientReadyReport*>(&e) != nullptr;
  });
  if (hook) tree.attach_extension(std::make_shared<GradientReadyReport>(std::move(hook)));
}

}  // namespace kiln
