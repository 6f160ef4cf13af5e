// Sequential: modules applied in order; backward runs them in reverse. Children are named
// "layers.<i>", so parameters read "layers.0.weight" as in a PyTorch model whose `layers` is an
// nn.Sequential, and safetensors files move between the two. A Linear followed by a ReLU runs as
// one fused op (Linear::forward_relu: the bias and ReLU in the GEMM's epilogue on the GPU); the
// ReLU module stays in the list, in summaries and names, but its forward and backward are skipped.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "kiln/layers/module.h"

namespace kiln {

class Sequential : public Module {
 public:
  Sequential() = default;
  explicit Sequential(std::vector<std::shared_ptr<Module>> modules);
  Sequential& add(std::shared_ptr<Module> module);
  template <typename M, typename... Args> Sequential& emplace(Args&&... args) {
    return add(std::make_shared<M>(std::forward<Args>(args)...));
  }

  std::size_t size() const { return modules_.size(); }
  Module& operator[](std::size_t i) { return *modules_.at(i); }
  std::string describe() const override;
  Shape output_shape(const Shape& input) const override;
  // A Keras-style table: layer, output shape and parameters per row, then the total.
  std::string summary(const Shape& input) const;
  // Called after each layer's backward with that layer, whose parameter gradients are then final
  // for the step: data-parallel training starts all-reducing them while earlier layers compute.
  void set_backward_hook(std::function<void(Module& layer)> hook) { backward_hook_ = std::move(hook); }

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override;

 private:
  std::vector<std::shared_ptr<Module>> modules_;
  // fused_[i]: the Linear at modules_[i] when modules_[i + 1] is a ReLU it absorbs, else null;
  // decided in add(), the one place the list changes.
  std::vector<class Linear*> fused_;
  std::function<void(Module&)> backward_hook_;
};

}  // namespace kiln
