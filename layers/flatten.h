// Flatten: (N, d1, d2, ...) -> (N, d1 * d2 * ...), a view; backward views the gradient back.
#pragma once

#include "kiln/layers/module.h"

namespace kiln {

class Flatten : public Module {
 public:
  std::string describe() const override { return "Flatten"; }
  Shape output_shape(const Shape& input) const override;

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override { return dy.view(input_shape_); }

 private:
  Shape input_shape_;
};

}  // namespace kiln
