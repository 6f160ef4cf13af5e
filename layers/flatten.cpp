#include "kiln/layers/flatten.h"

namespace kiln {

Shape Flatten::output_shape(const Shape& input) const {
  KILN_CHECK(input.rank() >= 1, "Flatten: expected an input with a batch axis, found {}",
             input.str());
  return Shape{input[0], input.product(1, input.rank())};
}

Tensor Flatten::forward_impl(const Tensor& x) {
  input_shape_ = x.shape();
  return x.view(output_shape(x.shape()));
}

}  // namespace kiln
