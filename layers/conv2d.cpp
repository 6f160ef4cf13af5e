// Conv2d forward and backward over the conv2d ops (im2col + GEMM on the CPU, cuDNN on a GPU).
#include "kiln/layers/conv2d.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kiln/core/window2d.h"

namespace kiln {

Conv2d::Conv2d(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel,
               Generator& gen, Conv2dOptions options, bool bias)
    : in_(in_channels), out_(out_channels), kernel_(kernel), options_(options) {
  KILN_CHECK(in_ > 0 && out_ > 0 && kernel_ > 0,
             "Conv2d needs positive sizes, found in {}, out {} and kernel {}", in_, out_, kernel_);
  KILN_CHECK(options_.stride >= 1 && options_.padding >= 0,
             "Conv2d needs stride >= 1 and padding >= 0, found stride {} and padding {}",
             options_.stride, options_.padding);
  Tensor w = Tensor::empty({out_, in_, kernel_, kernel_});
  kaiming_uniform_(w, gen, std::sqrt(5.0f));  // fans from (out, in, k, k): fan_in = in * k * k
  weight_ = &register_parameter("weight", std::move(w));
  if (bias) {
    const float bound = 1.0f / std::sqrt(static_cast<float>(in_ * kernel_ * kernel_));
    Tensor b = Tensor::empty({out_});
    uniform_(b, -bound, bound, gen);
    bias_ = &register_parameter("bias", std::move(b));
  }
}

std::string Conv2d::describe() const {
  return fmt::format("Conv2d({} -> {}, kernel {}, stride {}, padding {}{})", in_, out_, kernel_,
                     options_.stride, options_.padding, bias_ ? "" : ", no bias");
}

Shape Conv2d::output_shape(const Shape& input) const {
  KILN_CHECK(input.rank() == 4,
             "{}: expected an input of shape (batch, {}, height, width), found {}", describe(), in_,
             input.str());
  KILN_CHECK(input[1] == in_, "{}: expected {} input channels, found {} in an input of shape {}",
             describe(), in_, input[1], input.str());
  KILN_CHECK(options_.padding <=
                 (std::numeric_limits<std::int64_t>::max() - std::max(input[2], input[3])) / 2,
             "{}: padding {} on an input of {}x{} passes the sizes an int64 can count", describe(),
             options_.padding, input[2], input[3]);
  const std::int64_t oh = window_output_size(input[2], kernel_, options_.stride, options_.padding);
  const std::int64_t ow = window_output_size(input[3], kernel_, options_.stride, options_.padding);
  KILN_CHECK(oh > 0 && ow > 0,
             "{}: the input's {}x{} spatial size (padding {}) is smaller than the {}x{} kernel; "
             "use a larger input or more padding",
             describe(), input[2], input[3], options_.padding, kernel_, kernel_);
  return Shape{input[0], out_, oh, ow};
}

Tensor Conv2d::forward_impl(const Tensor& x) {
  Tensor& y = reuse(y_, output_shape(x.shape()));
  conv2d_forward(x, weight_->value, bias_ ? bias_->value : Tensor(), y, options_);
  x_ = is_training() ? x : Tensor();
  return y;
}

Tensor Conv2d::backward_impl(const Tensor& dy) {
  KILN_CHECK(x_.defined(), "{}: backward needs the input of a forward made in training mode",
             describe());
  Tensor no_bias;
  conv2d_backward_filter(x_, dy, weight_->grad, bias_ ? bias_->grad : no_bias, options_);  // +=
  if (!input_grad_wanted()) return Tensor();  // the network's input: no backward-data convolution
  Tensor& dx = reuse(dx_, x_.shape());
  conv2d_backward_data(dy, weight_->value, dx, options_);
  return dx;
}

}  // namespace kiln
