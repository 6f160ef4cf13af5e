// layer_norm, over the last axis: x is (..., C), viewed as (rows, C); each row is normalised by
// its own mean and biased variance, then scaled and shifted per feature, as PyTorch's LayerNorm
// (checks in core/ops/layer_norm.cpp; kernels in core/cpu/layer_norm.cpp, the oneDNN folder and
// core/cuda/layer_norm.cpp).
#pragma once

#include "kiln/core/ops/layer_norm_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// x: (..., C), gamma, beta: (C), y: x's shape, save_mean, save_invstd: (rows) with rows = numel / C
// -> y = (x - mean) * invstd * gamma + beta, save_mean = mean, save_invstd = 1 / sqrt(var + eps)
// per row (for backward). eps > 0.
void layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, Tensor& y,
                        Tensor& save_mean, Tensor& save_invstd, float eps);
// dy, x, gamma, save_mean, save_invstd from the forward -> dx ("="), dgamma += , dbeta += .
void layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                         const Tensor& save_mean, const Tensor& save_invstd, Tensor& dx,
                         Tensor& dgamma, Tensor& dbeta);

namespace op {

// check() fills the record: x viewed as (rows, cols = C).
struct LayerNormForward {
  static constexpr const char* kName = "layer_norm_forward";
  const Tensor& x;
  const Tensor& gamma;
  const Tensor& beta;
  Tensor& y;
  Tensor& save_mean;
  Tensor& save_invstd;
  float eps;
  rec::LayerNormForward record{};
  void check();
  Device device() const { return x.device(); }
};

struct LayerNormBackward {
  static constexpr const char* kName = "layer_norm_backward";
  const Tensor& dy;
  const Tensor& x;
  const Tensor& gamma;
  const Tensor& save_mean;
  const Tensor& save_invstd;
  Tensor& dx;
  Tensor& dgamma;
  Tensor& dbeta;
  rec::LayerNormBackward record{};
  void check();
  Device device() const { return x.device(); }
};

}  // namespace op
}  // namespace kiln
