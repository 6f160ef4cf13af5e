// BatchNorm1d over the batch_norm ops.
#include "kiln/layers/batch_norm.h"

#include "kiln/core/ops.h"

namespace kiln {

BatchNorm1d::BatchNorm1d(std::int64_t features, float eps, float momentum)
    : features_(features), eps_(eps), momentum_(momentum) {
  KILN_CHECK(features_ > 0, "BatchNorm1d needs a positive feature count, found {}", features_);
  KILN_CHECK(eps_ > 0.0f && momentum_ >= 0.0f && momentum_ <= 1.0f,
             "BatchNorm1d needs eps > 0 and momentum in [0, 1], found eps {} and momentum {}", eps_,
             momentum_);
  weight_ = &register_parameter("weight", Tensor::full(Shape{features_}, 1.0f));
  bias_ = &register_parameter("bias", Tensor::zeros(Shape{features_}));
  running_mean_ = &register_buffer("running_mean", Tensor::zeros(Shape{features_}));
  running_var_ = &register_buffer("running_var", Tensor::full(Shape{features_}, 1.0f));
}

std::string BatchNorm1d::describe() const {
  return fmt::format("BatchNorm1d({}, eps {}, momentum {})", features_, eps_, momentum_);
}

Shape BatchNorm1d::output_shape(const Shape& input) const {
  KILN_CHECK((input.rank() == 2 || input.rank() == 3) && input[1] == features_,
             "{}: expected an input of shape (batch, {}) or (batch, {}, length), found {}",
             describe(), features_, features_, input.str());
  return input;
}

Tensor BatchNorm1d::forward_impl(const Tensor& x) {
  Tensor& y = reuse(y_, x.shape());
  if (!is_training()) {
    batch_norm_forward_eval(x, weight_->value, bias_->value, running_mean(), running_var(), y,
                            eps_);
    x_ = Tensor();
    return y;
  }
  KILN_CHECK(x.numel() / features_ > 1,
             "{}: training needs more than one value per channel, found an input of shape {}; "
             "use a batch of 2 or more, or eval()",
             describe(), x.shape().str());
  batch_norm_forward_train(x, weight_->value, bias_->value, running_mean(), running_var(), y,
                           reuse(save_mean_, Shape{features_}),
                           reuse(save_invstd_, Shape{features_}), momentum_, eps_);
  x_ = x;
  return y;
}

Tensor BatchNorm1d::backward_impl(const Tensor& dy) {
  KILN_CHECK(x_.defined(), "{}: backward needs a forward made in training mode", describe());
  Tensor& dx = reuse(dx_, x_.shape());
  batch_norm_backward(dy, x_, weight_->value, save_mean_, save_invstd_, dx, weight_->grad,
                      bias_->grad);
  return dx;
}

}  // namespace kiln
