// Sequential: modules applied in order; backward runs them in reverse. Children are named
// "layers.<i>", so parameters read "layers.0.weight" as in a PyTorch model whose `layers` is an
// nn.Sequential, and safetensors files move between the two.
#pragma once

#include <memory>
#include <vector>

#include "kiln/layers/module.h"

namespace kiln {

class Sequential : public Module {
 public:
  Sequential() = default;
  explicit Sequential(std::vector<std::shared_ptr<Module>> modules);
  // Each module added is offered to the one before it (Module::absorb): a Linear takes on a
  // following ReLU and runs both as one fused op (the bias and ReLU in the GEMM's epilogue on the
  // GPU), also when the Linear ends a nested Sequential; the ReLU stays in the list, in summaries
  // and names, but its forward and backward are skipped.
  Sequential& add(std::shared_ptr<Module> module);
  template <typename M, typename... Args> Sequential& emplace(Args&&... args) {
    return add(std::make_shared<M>(std::forward<Args>(args)...));
  }

  std::size_t size() const { return modules_.size(); }
  Module& operator[](std::size_t i) { return *modules_.at(i); }
  const Module& operator[](std::size_t i) const { return *modules_.at(i); }
  std::string describe() const override;
  Shape output_shape(const Shape& input) const override;
  // A Keras-style table: layer, output shape and parameters per row, then the total.
  std::string summary(const Shape& input) const;
  // Offers `next` to the last module (a Linear ending this Sequential takes on a ReLU after it);
  // once taken, this Sequential accepts no more modules.
  bool absorb(const Module& next) override;

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override;

 private:
  std::vector<std::shared_ptr<Module>> modules_;
  // absorbed_[i]: modules_[i - 1] took on modules_[i], whose forward and backward are skipped;
  // decided in add(), the one place the list changes.
  std::vector<bool> absorbed_;
  bool successor_absorbed_ = false;  // the last module took on the module after this Sequential
};

}  // namespace kiln
