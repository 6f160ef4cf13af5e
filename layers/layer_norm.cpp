// LayerNorm over the layer_norm ops.
#include "kiln/layers/layer_norm.h"

#include "kiln/core/ops.h"

namespace kiln {

LayerNorm::LayerNorm(std::int64_t features, float eps) : features_(features), eps_(eps) {
  KILN_CHECK(features_ > 0, "LayerNorm needs a positive feature count, found {}", features_);
  KILN_CHECK(eps_ > 0.0f, "LayerNorm needs eps > 0, found {}", eps_);
  weight_ = &register_parameter("weight", Tensor::full(Shape{features_}, 1.0f));
  bias_ = &register_parameter("bias", Tensor::zeros(Shape{features_}));
}

std::string LayerNorm::describe() const {
  return fmt::format("LayerNorm({}, eps {})", features_, eps_);
}

Shape LayerNorm::output_shape(const Shape& input) const {
  KILN_CHECK(input.rank() >= 1 && input[input.rank() - 1] == features_,
             "{}: expected an input whose last axis is {}, found {}", describe(), features_,
             input.str());
  return input;
}

Tensor LayerNorm::forward_impl(const Tensor& x) {
  output_shape(x.shape());
  const Shape rows{x.numel() / features_};
  Tensor& y = reuse(y_, x.shape());
  layer_norm_forward(x, weight_->value, bias_->value, y, reuse(save_mean_, rows),
                     reuse(save_invstd_, rows), eps_);
  x_ = x;
  return y;
}

Tensor LayerNorm::backward_impl(const Tensor& dy) {
  KILN_CHECK(x_.defined(), "{}: backward needs a forward first", describe());
  Tensor& dx = reuse_gradient(0, x_.shape());
  layer_norm_backward(dy, x_, weight_->value, save_mean_, save_invstd_, dx, weight_->grad,
                      bias_->grad);
  return dx;
}

}  // namespace kiln
