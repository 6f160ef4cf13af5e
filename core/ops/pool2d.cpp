// The pooling ops' checks (the geometry, named sizes on every mismatch) and public entry points.
#include "kiln/core/ops/pool2d.h"

#include <limits>

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace {

Window2d pool_window(const char* op, const Shape& x, const Pool2dOptions& o) {
  KILN_CHECK(x.rank() == 4 && x[2] > 0 && x[3] > 0,
             "{}: x must be (batch, channels, height, width) with a non-empty image, found {}", op,
             x.str());
  KILN_CHECK(o.kernel >= 1 && o.stride >= 1,
             "{}: kernel and stride must be >= 1, found kernel {} and stride {}", op, o.kernel,
             o.stride);
  // As PyTorch: every window then holds at least one input element.
  KILN_CHECK(o.padding >= 0 && o.padding <= o.kernel / 2,  // not 2 * padding: it could wrap
             "{}: padding must be in [0, kernel / 2] = [0, {}], found {}", op, o.kernel / 2,
             o.padding);
  Window2d g;
  g.n = x[0], g.c = g.oc = x[1], g.h = x[2], g.w = x[3];
  g.kh = g.kw = o.kernel;
  g.sh = g.sw = o.stride;
  g.ph = g.pw = o.padding;
  g.oh = window_output_size(g.h, g.kh, g.sh, g.ph);
  g.ow = window_output_size(g.w, g.kw, g.sw, g.pw);
  KILN_CHECK(g.oh > 0 && g.ow > 0,
             "{}: the input's {}x{} with padding {} is smaller than the {}x{} window", op, g.h, g.w,
             o.padding, o.kernel, o.kernel);
  // Indices within a plane are int32 (argmax), and cuDNN's descriptors take ints.
  KILN_CHECK(g.h * g.w <= std::numeric_limits<std::int32_t>::max() &&
                 x.numel() <= std::numeric_limits<int>::max(),
             "{}: x {} is too large to pool (2^31 elements or more)", op, x.str());
  return g;
}

Shape output_of(const Window2d& g) { return Shape{g.n, g.c, g.oh, g.ow}; }

// x, y (and dy, dx) on one device with the pooled shapes; returns the geometry.
Window2d check_pool(const char* op, const Tensor& x, const Tensor& y, const Pool2dOptions& o) {
  detail::check_operands(op, {{"x", &x}, {"y", &y}}, DType::f32);
  detail::check_same_device(op, {{"x", &x}, {"y", &y}});
  const Window2d g = pool_window(op, x.shape(), o);
  detail::check_shape(op, {"y", &y}, output_of(g));
  return g;
}

void check_gradients(const char* op, const Tensor& x, const Tensor& y, const Tensor& dy,
                     const Tensor& dx) {
  detail::check_operands(op, {{"dy", &dy}, {"dx", &dx}}, DType::f32);
  detail::check_same_device(op, {{"x", &x}, {"dy", &dy}, {"dx", &dx}});
  detail::check_shape(op, {"dy", &dy}, y.shape());
  detail::check_shape(op, {"dx", &dx}, x.shape());
}

void check_argmax(const char* op, const Tensor& x, const Tensor& y, const Tensor& argmax) {
  detail::check_operands(op, {{"argmax", &argmax}}, DType::i32);
  detail::check_same_device(op, {{"x", &x}, {"argmax", &argmax}});
  detail::check_shape(op, {"argmax", &argmax}, y.shape());
}

}  // namespace

Shape pool2d_output_shape(const Shape& x, const Pool2dOptions& options) {
  return output_of(pool_window("pool2d", x, options));
}

namespace op {

void MaxPool2dForward::check() {
  const Window2d g = check_pool(kName, x, y, options);
  check_argmax(kName, x, y, argmax);
  record = {g, x.data<float>(), y.data<float>(), argmax.data<std::int32_t>()};
}

void MaxPool2dBackward::check() {
  const Window2d g = check_pool(kName, x, y, options);
  check_argmax(kName, x, y, argmax);
  check_gradients(kName, x, y, dy, dx);
  record = {g,
            x.data<float>(),
            y.data<float>(),
            argmax.data<std::int32_t>(),
            dy.data<float>(),
            dx.data<float>()};
}

void AvgPool2dForward::check() {
  record = {check_pool(kName, x, y, options), x.data<float>(), y.data<float>()};
}

void AvgPool2dBackward::check() {
  const Window2d g = check_pool(kName, x, y, options);
  check_gradients(kName, x, y, dy, dx);
  record = {g, x.data<float>(), y.data<float>(), dy.data<float>(), dx.data<float>()};
}

}  // namespace op

void max_pool2d_forward(const Tensor& x, Tensor& y, Tensor& argmax, const Pool2dOptions& options) {
  run(op::MaxPool2dForward{x, y, argmax, options});
}

void max_pool2d_backward(const Tensor& x, const Tensor& y, const Tensor& argmax, const Tensor& dy,
                         Tensor& dx, const Pool2dOptions& options) {
  run(op::MaxPool2dBackward{x, y, argmax, dy, dx, options});
}

void avg_pool2d_forward(const Tensor& x, Tensor& y, const Pool2dOptions& options) {
  run(op::AvgPool2dForward{x, y, options});
}

void avg_pool2d_backward(const Tensor& x, const Tensor& y, const Tensor& dy, Tensor& dx,
                         const Pool2dOptions& options) {
  run(op::AvgPool2dBackward{x, y, dy, dx, options});
}

}  // namespace kiln
