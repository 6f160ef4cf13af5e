// Residual: y = x + f(x) for a body module f (a Sequential or any Module) whose output has its
// input's shape, as in a ResNet block before its last activation. Backward: dx = dy + f'(dy),
// the body's parameter gradients accumulated by its own backward. The body is the child "body",
// so its parameters read "body.layers.0.weight" (inside a Sequential "layers.1.body.…").
#pragma once

#include <memory>
#include <optional>

#include "kiln/layers/module.h"

namespace kiln {

class Residual : public Module {
 public:
  // input: an input shape to check the body against now; without one, each forward checks it.
  explicit Residual(std::shared_ptr<Module> body, const std::optional<Shape>& input = std::nullopt);

  Module& body() { return *body_; }
  const Module& body() const { return *body_; }
  std::string describe() const override;                  // "Residual(Sequential(3 layers))"
  Shape output_shape(const Shape& input) const override;  // the input's, when the body keeps it

 protected:
  Tensor forward_impl(const Tensor& x) override;    // x: (N, ...) -> y: x's shape
  Tensor backward_impl(const Tensor& dy) override;  // dy: x's shape -> dx: x's shape

 private:
  std::shared_ptr<Module> body_;
  Tensor y_, dx_;
};

}  // namespace kiln
