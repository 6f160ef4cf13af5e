// conv2d (NCHW; dilation 1, groups 1): forward, backward_data (dx "=") and backward_filter (dw,
// db "+="). check() works out the geometry once as the record's Window2d; kernels in
// core/cpu/conv2d.cpp, the oneDNN folder and core/cuda/conv2d.cpp (cuDNN, whose legacy API takes
// int sizes, so sizes past 2^31 are refused there with a message).
#pragma once

#include "kiln/core/ops/conv2d_record.h"
#include "kiln/core/tensor.h"
#include "kiln/core/window2d.h"

namespace kiln {

struct Conv2dOptions {
  std::int64_t stride = 1;   // both axes
  std::int64_t padding = 0;  // zeros on every side
};
// x: (N, C, H, W), weight: (OC, C, kH, kW) -> (N, OC, OH, OW), OH = (H + 2 pad - kH) / stride + 1;
// throws naming the sizes when the channels differ or the padded input is smaller than kH x kW.
Shape conv2d_output_shape(const Shape& x, const Shape& weight, const Conv2dOptions& options);
// x, weight as above, bias: (OC) or an undefined tensor for none -> y = conv(x, weight) + bias.
void conv2d_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor& y,
                    const Conv2dOptions& options);
// dy: (N, OC, OH, OW), weight -> dx: (N, C, H, W) = dL/dx ("=": overwritten). dx's shape says
// which input size the forward had (several give the same output when stride > 1).
void conv2d_backward_data(const Tensor& dy, const Tensor& weight, Tensor& dx,
                          const Conv2dOptions& options);
// x, dy as above -> dweight: (OC, C, kH, kW) += dL/dweight, dbias: (OC) += dL/dbias (or an
// undefined tensor to skip it).
void conv2d_backward_filter(const Tensor& x, const Tensor& dy, Tensor& dweight, Tensor& dbias,
                            const Conv2dOptions& options);

namespace op {

struct Conv2dForward {
  static constexpr const char* kName = "conv2d_forward";
  const Tensor& x;
  const Tensor& weight;
  const Tensor& bias;
  Tensor& y;
  Conv2dOptions options;
  rec::Conv2dForward record{};  // filled by check()
  void check();
  Device device() const { return x.device(); }
};

struct Conv2dBackwardData {
  static constexpr const char* kName = "conv2d_backward_data";
  const Tensor& dy;
  const Tensor& weight;
  Tensor& dx;
  Conv2dOptions options;
  rec::Conv2dBackwardData record{};
  void check();
  Device device() const { return dy.device(); }
};

struct Conv2dBackwardFilter {
  static constexpr const char* kName = "conv2d_backward_filter";
  const Tensor& x;
  const Tensor& dy;
  Tensor& dweight;
  Tensor& dbias;
  Conv2dOptions options;
  rec::Conv2dBackwardFilter record{};
  void check();
  Device device() const { return x.device(); }
};

}  // namespace op

namespace detail {
// cuDNN's legacy descriptors and its kernels index with 32-bit ints: throws past them.
void check_fits_cudnn(const char* op, const Window2d& g);
}  // namespace detail

}  // namespace kiln
