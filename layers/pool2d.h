// MaxPool2d and AvgPool2d on NCHW tensors, as PyTorch's (floor mode; stride defaults to the
// kernel; padding at most half the kernel; max pooling ignores padding, average pooling counts
// it as zeros). Max pooling's gradient goes to each window's first maximum.
#pragma once

#include "kiln/core/ops.h"
#include "kiln/layers/module.h"

namespace kiln {

// What the two share: the window, its checks and the summary line.
class Pool2dLayer : public Module {
 public:
  std::string describe() const override;
  // (N, C, H, W) -> (N, C, OH, OW), OH = (H + 2 padding - kernel) / stride + 1.
  Shape output_shape(const Shape& input) const override;
  const Pool2dOptions& options() const { return options_; }

 protected:
  // stride 0 means "the kernel size", PyTorch's stride=None.
  Pool2dLayer(const char* name, std::int64_t kernel, std::int64_t stride, std::int64_t padding);

  const char* name_;
  Pool2dOptions options_;
  Tensor x_;  // the input of the last training forward
  Tensor y_, dx_;
};

class MaxPool2d : public Pool2dLayer {
 public:
  explicit MaxPool2d(std::int64_t kernel, std::int64_t stride = 0, std::int64_t padding = 0)
      : Pool2dLayer("MaxPool2d", kernel, stride, padding) {}

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override;

 private:
  Tensor argmax_;  // int32, y's shape (written on the CPU only; see ops.h)
};

class AvgPool2d : public Pool2dLayer {
 public:
  explicit AvgPool2d(std::int64_t kernel, std::int64_t stride = 0, std::int64_t padding = 0)
      : Pool2dLayer("AvgPool2d", kernel, stride, padding) {}

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override;
};

}  // namespace kiln
