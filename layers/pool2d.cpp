// Pooling layers over the pool2d ops; backward hands the ops the forward's input and output
// (cuDNN's pooling backward needs both).
#include "kiln/layers/pool2d.h"

#include "kiln/core/window2d.h"

namespace kiln {

Pool2dLayer::Pool2dLayer(const char* name, std::int64_t kernel, std::int64_t stride,
                         std::int64_t padding)
    : name_(name), options_{kernel, stride == 0 ? kernel : stride, padding} {
  KILN_CHECK(kernel >= 1 && stride >= 0,
             "{} needs kernel >= 1 and stride >= 1 (0 for the kernel size), found {} and {}", name,
             kernel, stride);
  KILN_CHECK(padding >= 0 && padding <= kernel / 2,  // not 2 * padding: it could wrap
             "{}: padding must be in [0, kernel / 2] = [0, {}], found {}", name, kernel / 2,
             padding);
}

std::string Pool2dLayer::describe() const {
  return fmt::format("{}(kernel {}, stride {}, padding {})", name_, options_.kernel,
                     options_.stride, options_.padding);
}

Shape Pool2dLayer::output_shape(const Shape& input) const {
  KILN_CHECK(input.rank() == 4,
             "{}: expected an input of shape (batch, channels, height, width), found {}",
             describe(), input.str());
  const Pool2dOptions& o = options_;
  const std::int64_t oh = window_output_size(input[2], o.kernel, o.stride, o.padding);
  const std::int64_t ow = window_output_size(input[3], o.kernel, o.stride, o.padding);
  KILN_CHECK(oh > 0 && ow > 0,
             "{}: the input's {}x{} spatial size (padding {}) is smaller than the {}x{} window",
             describe(), input[2], input[3], o.padding, o.kernel, o.kernel);
  return Shape{input[0], input[1], oh, ow};
}

Tensor MaxPool2d::forward_impl(const Tensor& x) {
  const Shape shape = output_shape(x.shape());
  Tensor& y = reuse(y_, shape);
  max_pool2d_forward(x, y, reuse(argmax_, shape, DType::i32), options_);
  x_ = is_training() ? x : Tensor();
  return y;
}

Tensor MaxPool2d::backward_impl(const Tensor& dy) {
  KILN_CHECK(x_.defined(), "{}: backward needs a forward made in training mode", describe());
  Tensor& dx = reuse(dx_, x_.shape());
  max_pool2d_backward(x_, y_, argmax_, dy, dx, options_);
  return dx;
}

Tensor AvgPool2d::forward_impl(const Tensor& x) {
  Tensor& y = reuse(y_, output_shape(x.shape()));
  avg_pool2d_forward(x, y, options_);
  x_ = is_training() ? x : Tensor();
  return y;
}

Tensor AvgPool2d::backward_impl(const Tensor& dy) {
  KILN_CHECK(x_.defined(), "{}: backward needs a forward made in training mode", describe());
  Tensor& dx = reuse(dx_, x_.shape());
  avg_pool2d_backward(x_, y_, dy, dx, options_);
  return dx;
}

}  // namespace kiln
