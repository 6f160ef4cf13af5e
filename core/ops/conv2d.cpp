// The conv2d ops' checks (the geometry, named sizes on every mismatch) and public entry points.
#include "kiln/core/ops/conv2d.h"

#include <algorithm>
#include <array>
#include <limits>

#include "kiln/core/checked_math.h"

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace {

// The geometry of x (N, C, H, W) under weight (OC, C, kH, kW); names both shapes on a mismatch.
Window2d conv_window(const char* op, const Shape& x, const Shape& w, const Conv2dOptions& o) {
  KILN_CHECK(x.rank() == 4 && x[2] > 0 && x[3] > 0,
             "{}: x must be (batch, channels, height, width) with a non-empty image, found {}", op,
             x.str());
  KILN_CHECK(w.rank() == 4, "{}: weight must be (out channels, in channels, kH, kW), found {}", op,
             w.str());
  KILN_CHECK(w[1] == x[1], "{}: weight {} expects {} input channels, found {} in x {}", op, w.str(),
             w[1], x[1], x.str());
  KILN_CHECK(w[0] > 0 && w[1] > 0 && w[2] > 0 && w[3] > 0, "{}: weight {} has an empty axis", op,
             w.str());
  KILN_CHECK(o.stride >= 1 && o.padding >= 0,
             "{}: stride must be >= 1 and padding >= 0, found stride {} and padding {}", op,
             o.stride, o.padding);
  // The padded extent (in + 2 pad) must not wrap.
  KILN_CHECK(o.padding <= (std::numeric_limits<std::int64_t>::max() - std::max(x[2], x[3])) / 2,
             "{}: padding {} on an input of {}x{} passes the sizes an int64 can count", op,
             o.padding, x[2], x[3]);
  Window2d g;
  g.n = x[0], g.c = x[1], g.h = x[2], g.w = x[3];
  g.oc = w[0], g.kh = w[2], g.kw = w[3];
  g.sh = g.sw = o.stride;
  g.ph = g.pw = o.padding;
  g.oh = window_output_size(g.h, g.kh, g.sh, g.ph);
  g.ow = window_output_size(g.w, g.kw, g.sw, g.pw);
  KILN_CHECK(g.oh > 0 && g.ow > 0,
             "{}: the input's {}x{} with padding {} is smaller than the {}x{} kernel; use a larger "
             "input or more padding",
             op, g.h, g.w, o.padding, g.kh, g.kw);
  return g;
}

Shape output_of(const Window2d& g) { return Shape{g.n, g.oc, g.oh, g.ow}; }

}  // namespace

namespace detail {
void check_fits_cudnn(const char* op, const Window2d& g) {
  constexpr std::int64_t kMax = std::numeric_limits<int>::max();
  const auto within = [&](std::array<std::int64_t, 4> extents) {
    const auto n = checked_product(extents);
    return n.has_value() && *n <= kMax;
  };
  KILN_CHECK(within({g.n, g.c, g.h, g.w}) && within({g.n, g.oc, g.oh, g.ow}) &&
                 within({g.oc, g.c, g.kh, g.kw}),
             "{}: tensors of 2^31 or more elements are beyond cuDNN's convolution; split the batch",
             op);
}
}  // namespace detail

Shape conv2d_output_shape(const Shape& x, const Shape& weight, const Conv2dOptions& options) {
  return output_of(conv_window("conv2d", x, weight, options));
}

namespace op {

void Conv2dForward::check() {
  detail::check_operands(kName, {{"x", &x}, {"weight", &weight}, {"y", &y}}, DType::f32);
  detail::check_same_device(kName, {{"x", &x}, {"weight", &weight}, {"y", &y}});
  const Window2d g = conv_window(kName, x.shape(), weight.shape(), options);
  detail::check_shape(kName, {"y", &y}, output_of(g));
  if (bias.defined()) {
    detail::check_operands(kName, {{"bias", &bias}}, DType::f32);
    detail::check_same_device(kName, {{"x", &x}, {"bias", &bias}});
    detail::check_shape(kName, {"bias", &bias}, Shape{g.oc});
  }
  record = {g, x.data<float>(), weight.data<float>(), bias.defined() ? bias.data<float>() : nullptr,
            y.data<float>()};
}

void Conv2dBackwardData::check() {
  detail::check_operands(kName, {{"dy", &dy}, {"weight", &weight}, {"dx", &dx}}, DType::f32);
  detail::check_same_device(kName, {{"dy", &dy}, {"weight", &weight}, {"dx", &dx}});
  const Window2d g = conv_window(kName, dx.shape(), weight.shape(), options);
  detail::check_shape(kName, {"dy", &dy}, output_of(g));
  record = {g, dy.data<float>(), weight.data<float>(), dx.data<float>()};
}

void Conv2dBackwardFilter::check() {
  detail::check_operands(kName, {{"x", &x}, {"dy", &dy}, {"dweight", &dweight}}, DType::f32);
  detail::check_same_device(kName, {{"x", &x}, {"dy", &dy}, {"dweight", &dweight}});
  const Window2d g = conv_window(kName, x.shape(), dweight.shape(), options);
  detail::check_shape(kName, {"dy", &dy}, output_of(g));
  if (dbias.defined()) {
    detail::check_operands(kName, {{"dbias", &dbias}}, DType::f32);
    detail::check_same_device(kName, {{"x", &x}, {"dbias", &dbias}});
    detail::check_shape(kName, {"dbias", &dbias}, Shape{g.oc});
  }
  record = {g, x.data<float>(), dy.data<float>(), dweight.data<float>(),
            dbias.defined() ? dbias.data<float>() : nullptr};
}

}  // namespace op

void conv2d_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor& y,
                    const Conv2dOptions& options) {
  run(op::Conv2dForward{x, weight, bias, y, options});
}

void conv2d_backward_data(const Tensor& dy, const Tensor& weight, Tensor& dx,
                          const Conv2dOptions& options) {
  run(op::Conv2dBackwardData{dy, weight, dx, options});
}

void conv2d_backward_filter(const Tensor& x, const Tensor& dy, Tensor& dweight, Tensor& dbias,
                            const Conv2dOptions& options) {
  run(op::Conv2dBackwardFilter{x, dy, dweight, dbias, options});
}

}  // namespace kiln
