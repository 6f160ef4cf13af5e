// Linear forward and backward as three GEMMs and the bias ops.
#include "kiln/layers/linear.h"

#include <cmath>

#include "kiln/core/ops.h"

namespace kiln {

Linear::Linear(std::int64_t in_features, std::int64_t out_features, Generator& gen, bool bias)
    : in_(in_features), out_(out_features) {
  KILN_CHECK(in_ > 0 && out_ > 0, "Linear needs positive sizes, found in {} and out {}", in_, out_);
  Tensor w = Tensor::empty({out_, in_});
  kaiming_uniform_(w, gen, std::sqrt(5.0f));
  weight_ = &register_parameter("weight", std::move(w));
  if (bias) {
    const float bound = 1.0f / std::sqrt(static_cast<float>(in_));
    Tensor b = Tensor::empty({out_});
    uniform_(b, -bound, bound, gen);
    bias_ = &register_parameter("bias", std::move(b));
  }
}

std::string Linear::describe() const {
  return fmt::format("Linear({} -> {}{})", in_, out_, bias_ ? "" : ", no bias");
}

Shape Linear::output_shape(const Shape& input) const {
  KILN_CHECK(input.rank() == 2 && input[1] == in_,
             "{}: expected an input of shape (batch, {}), found {}", describe(), in_, input.str());
  return Shape{input[0], out_};
}

Tensor Linear::forward_impl(const Tensor& x) {
  Tensor& y = reuse(y_, {x.size(0), out_});
  gemm(x, false, weight_->value, true, y);  // (N, in) @ (out, in)ᵀ
  if (bias_) bias_add(y, bias_->value);
  if (is_training()) x_ = x;
  return y;
}

Tensor Linear::backward_impl(const Tensor& dy) {
  KILN_CHECK(x_.defined() && x_.size(0) == dy.size(0),
             "{}: backward needs the input of a forward made in training mode", describe());
  gemm(dy, true, x_, false, weight_->grad, 1.0f, 1.0f);  // dW += dyᵀ @ x: (out, N) @ (N, in)
  if (bias_) bias_grad(dy, bias_->grad);
  Tensor& dx = reuse(dx_, {dy.size(0), in_});
  gemm(dy, false, weight_->value, false, dx);  // (N, out) @ (out, in)
  return dx;
}

}  // namespace kiln
