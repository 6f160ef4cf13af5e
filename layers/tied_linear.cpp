// TiedLinear over the linear ops, with no bias and the shared weight.
#include "kiln/layers/tied_linear.h"

#include "kiln/core/ops.h"

namespace kiln {

TiedLinear::TiedLinear(Parameter& weight, std::int64_t out)
    : weight_(weight), out_(out == 0 && weight.value.rank() == 2 ? weight.value.size(0) : out) {
  KILN_CHECK(weight_.value.rank() == 2, "TiedLinear needs a (out, in) weight, found {} named '{}'",
             weight_.value.shape().str(), weight_.name);
  KILN_CHECK(out_ >= 1 && out_ <= weight_.value.size(0),
             "TiedLinear: {} outputs of the {} rows of '{}'; give 1 .. {}", out_,
             weight_.value.size(0), weight_.name, weight_.value.size(0));
}

std::string TiedLinear::describe() const {
  return fmt::format("TiedLinear({} -> {}, weight of {})", weight_.value.size(1), out_,
                     weight_.name);
}

Shape TiedLinear::output_shape(const Shape& input) const {
  KILN_CHECK(input.rank() == 2 && input[1] == weight_.value.size(1),
             "{}: expected an input of shape (batch, {}), found {}", describe(),
             weight_.value.size(1), input.str());
  return Shape{input[0], out_};
}

Tensor TiedLinear::forward_impl(const Tensor& x) {
  Tensor& y = reuse(y_, output_shape(x.shape()));
  linear_forward(x, rows(), Tensor(), y);
  if (is_training()) x_ = x;
  return y;
}

Tensor TiedLinear::backward_impl(const Tensor& dy) {
  KILN_CHECK(x_.defined() && x_.size(0) == dy.size(0),
             "{}: backward needs the input of a forward made in training mode", describe());
  Tensor* dx = input_grad_wanted() ? &reuse(dx_, x_.shape()) : nullptr;
  Tensor& dpre = reuse(unused_dpre_, Shape{0});
  Tensor dweight = weight_.grad.slice(0, out_);
  linear_backward(dy, x_, rows(), Tensor(), dweight, no_bias_, dx, dpre);
  return dx != nullptr ? *dx : Tensor();
}

}  // namespace kiln
