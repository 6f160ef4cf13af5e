// Linear forward and backward, one op each (core/ops/linear.h); under MatmulPrecision::bf16 on a
// CPU with bf16 instructions the products read the weight's bf16 copy, kept by the optimizer
// (layers/bf16_shadow.h).
#include "kiln/layers/linear.h"

#include <cmath>
#include <utility>

#include "kiln/core/checked_math.h"
#include "kiln/core/memory.h"
#include "kiln/core/ops.h"
#include "kiln/layers/activations.h"
#include "kiln/layers/bf16_shadow.h"

namespace kiln {

Linear::Linear(std::int64_t in_features, std::int64_t out_features, Generator& gen, bool bias)
    : Linear(in_features, out_features, gen, LinearOptions{bias, std::nullopt}) {}

Linear::Linear(std::int64_t in_features, std::int64_t out_features, Generator& gen,
               const LinearOptions& options)
    : in_(in_features), out_(out_features) {
  KILN_CHECK(in_ > 0 && out_ > 0, "Linear needs positive sizes, found in {} and out {}", in_, out_);
  KILN_CHECK(!options.activation || *options.activation == Activation::relu,
             "Linear({} -> {}): only a ReLU fuses into a Linear, found {}; put a {} layer after "
             "the Linear instead",
             in_, out_, ActivationLayer(*options.activation).describe(),
             ActivationLayer(*options.activation).describe());
  relu_ = options.activation.has_value();
  KILN_CHECK(
      checked_mul(in_, out_).has_value(),
      "Linear({} -> {}): in_features x out_features passes the 2^63 - 1 elements a tensor can "
      "hold; use smaller sizes",
      in_, out_);
  const bool bias = options.bias;
  try {  // a weight too large for memory is named with its layer
    Tensor w = Tensor::empty({out_, in_});
    kaiming_uniform_(w, gen, std::sqrt(5.0f));
    weight_ = &register_parameter("weight", std::move(w));
    if (bias) {
      const float bound = 1.0f / std::sqrt(static_cast<float>(in_));
      Tensor b = Tensor::empty({out_});
      uniform_(b, -bound, bound, gen);
      bias_ = &register_parameter("bias", std::move(b));
    }
  } catch (const OutOfMemory& e) {
    throw OutOfMemory(fmt::format("Linear({} -> {}): its parameters: {}", in_, out_, e.text()),
                      e.where());
  } catch (const Error& e) {
    throw Error(fmt::format("Linear({} -> {}): its parameters: {}", in_, out_, e.text()),
                e.where());
  }
}

std::string Linear::describe() const {
  return fmt::format("Linear({} -> {}{}{})", in_, out_, bias_ ? "" : ", no bias",
                     relu_ ? ", ReLU" : "");
}

Shape Linear::output_shape(const Shape& input) const {
  KILN_CHECK(input.rank() == 2 && input[1] == in_,
             "{}: expected an input of shape (batch, {}), found {}", describe(), in_, input.str());
  return Shape{input[0], out_};
}

bool Linear::absorb(const Module& next) {
  if (relu_ || absorbed_relu_ || next.elementwise_activation() != Activation::relu) return false;
  absorbed_relu_ = true;
  return true;
}

Tensor Linear::forward_impl(const Tensor& x) {
  Tensor& y = reuse(y_, {x.size(0), out_});
  linear_forward(x, weight_->value, bias_ ? bias_->value : Tensor(), y, relu_ || absorbed_relu_,
                 bf16_weight(*weight_));
  if (is_training()) x_ = x;
  return y;
}

Tensor Linear::backward_impl(const Tensor& dy) {
  KILN_CHECK(x_.defined() && x_.size(0) == dy.size(0),
             "{}: backward needs the input of a forward made in training mode", describe());
  // ReLU'(pre) is [pre > 0], and pre > 0 exactly where the output y > 0: the op masks dy by y.
  const bool relu = relu_ || absorbed_relu_;
  enum Slot : std::size_t { kDpre, kDx };  // reuse_gradient's
  Tensor& dpre = reuse_gradient(kDpre, relu ? dy.shape() : Shape{0});
  Tensor no_bias;
  Tensor* dx = input_grad_wanted() ? &reuse_gradient(kDx, {dy.size(0), in_}) : nullptr;  // skipped
  linear_backward(dy, x_, weight_->value, relu ? y_ : Tensor(), weight_->grad,
                  bias_ ? bias_->grad : no_bias, dx, dpre, bf16_weight(*weight_));
  return dx != nullptr ? *dx : Tensor();
}

}  // namespace kiln
