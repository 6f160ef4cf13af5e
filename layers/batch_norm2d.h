// BatchNorm2d over (N, C, H, W), as PyTorch's: BatchNorm1d's per-channel statistics over N·H·W,
// the images viewed as (N, C, H·W) (contiguous, so no copy), with the same parameters and
// buffers ("weight", "bias", "running_mean", "running_var"). The normalisation after a Conv2d.
#pragma once

#include "kiln/layers/batch_norm.h"

namespace kiln {

class BatchNorm2d : public BatchNorm1d {
 public:
  using BatchNorm1d::BatchNorm1d;

  std::string describe() const override;
  Shape output_shape(const Shape& input) const override;  // (N, C, H, W) -> the same

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override;
};

}  // namespace kiln
