// Conv2d: y = conv(x, W) + b on NCHW tensors, W: (out, in, k, k), b: (out), dilation 1, one
// group; initialised as PyTorch's nn.Conv2d (Kaiming-uniform with a = sqrt(5) for W, i.e.
// U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = in * k * k, and the same bound for b).
#pragma once

#include "kiln/core/ops.h"
#include "kiln/core/random.h"
#include "kiln/layers/module.h"

namespace kiln {

class Conv2d : public Module {
 public:
  // Conv2d(1, 6, 5, gen, {.stride = 1, .padding = 2})
  Conv2d(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel, Generator& gen,
         Conv2dOptions options = {}, bool bias = true);

  std::string describe() const override;
  // (N, in, H, W) -> (N, out, OH, OW), OH = (H + 2 padding - kernel) / stride + 1.
  Shape output_shape(const Shape& input) const override;
  Parameter& weight() { return *weight_; }
  Parameter* bias() { return bias_; }
  const Conv2dOptions& options() const { return options_; }

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override;

 private:
  std::int64_t in_, out_, kernel_;
  Conv2dOptions options_;
  Parameter* weight_;
  Parameter* bias_ = nullptr;
  Tensor x_;  // the input of the last training forward, for the weight gradient
  Tensor y_, dx_;
};

}  // namespace kiln
