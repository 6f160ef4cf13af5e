// max_pool2d and avg_pool2d, forward and backward (NCHW, per channel; floor mode, padding at most
// half the kernel, as PyTorch). check() works out the geometry once, in the record; kernels in
// core/cpu/pool2d.cpp (which routes max-pool gradients by the argmax it recorded) and
// core/cuda/pool2d.cpp (cuDNN, which compares x with y again: why the backward ops take x and y).
#pragma once

#include "kiln/core/ops/pool2d_record.h"
#include "kiln/core/tensor.h"
#include "kiln/core/window2d.h"

namespace kiln {

struct Pool2dOptions {
  std::int64_t kernel = 2;   // square window
  std::int64_t stride = 2;   // both axes
  std::int64_t padding = 0;  // max pooling never picks padding; average pooling counts it as 0
};
// x: (N, C, H, W) -> (N, C, OH, OW); throws when the padded input is smaller than the window.
Shape pool2d_output_shape(const Shape& x, const Pool2dOptions& options);
// x -> y: (N, C, OH, OW) = window maxima; argmax: int32, y's shape = flat index ih * W + iw of each
// window's first maximum (NaN wins). The CPU writes argmax and its backward routes by it; the
// CUDA body (cuDNN) finds the maxima again from x and y and leaves argmax untouched.
void max_pool2d_forward(const Tensor& x, Tensor& y, Tensor& argmax, const Pool2dOptions& options);
// x, y, argmax from the forward, dy: y's shape -> dx: x's shape ("="), each dy added to the input
// element its window picked.
void max_pool2d_backward(const Tensor& x, const Tensor& y, const Tensor& argmax, const Tensor& dy,
                         Tensor& dx, const Pool2dOptions& options);
// x -> y = window sums / kernel² (count_include_pad, PyTorch's default).
void avg_pool2d_forward(const Tensor& x, Tensor& y, const Pool2dOptions& options);
// x, y from the forward (cuDNN's backward takes them), dy -> dx ("=").
void avg_pool2d_backward(const Tensor& x, const Tensor& y, const Tensor& dy, Tensor& dx,
                         const Pool2dOptions& options);

namespace op {

struct MaxPool2dForward {
  static constexpr const char* kName = "max_pool2d_forward";
  const Tensor& x;
  Tensor& y;
  Tensor& argmax;
  Pool2dOptions options;
  rec::MaxPool2dForward record{};  // filled by check()
  void check();
  Device device() const { return x.device(); }
};

struct MaxPool2dBackward {
  static constexpr const char* kName = "max_pool2d_backward";
  const Tensor& x;
  const Tensor& y;
  const Tensor& argmax;
  const Tensor& dy;
  Tensor& dx;
  Pool2dOptions options;
  rec::MaxPool2dBackward record{};  // filled by check()
  void check();
  Device device() const { return x.device(); }
};

struct AvgPool2dForward {
  static constexpr const char* kName = "avg_pool2d_forward";
  const Tensor& x;
  Tensor& y;
  Pool2dOptions options;
  rec::AvgPool2dForward record{};  // filled by check()
  void check();
  Device device() const { return x.device(); }
};

struct AvgPool2dBackward {
  static constexpr const char* kName = "avg_pool2d_backward";
  const Tensor& x;
  const Tensor& y;
  const Tensor& dy;
  Tensor& dx;
  Pool2dOptions options;
  rec::AvgPool2dBackward record{};  // filled by check()
  void check();
  Device device() const { return x.device(); }
};

}  // namespace op
}  // namespace kiln
