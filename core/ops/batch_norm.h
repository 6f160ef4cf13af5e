// batch_norm, per channel over the batch: x is (N, C) or (N, C, L), statistics over N·L (checks
// in core/ops/batch_norm.cpp; kernels in core/cpu/batch_norm.cpp and core/cuda/batch_norm.cpp).
#pragma once

#include "kiln/core/ops/batch_norm_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// Training: y = (x - mean) * invstd * gamma + beta with the batch mean and biased variance;
// save_mean, save_invstd: (C) = mean, 1 / sqrt(var + eps) for backward; running_mean/var (C) =
// (1 - momentum) * running + momentum * batch statistic, the variance unbiased (as PyTorch).
// Needs N·L > 1.
void batch_norm_forward_train(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                              Tensor& running_mean, Tensor& running_var, Tensor& y,
                              Tensor& save_mean, Tensor& save_invstd, float momentum, float eps);
// Evaluation: y = (x - running_mean) / sqrt(running_var + eps) * gamma + beta.
void batch_norm_forward_eval(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                             const Tensor& running_mean, const Tensor& running_var, Tensor& y,
                             float eps);
// dy, x, gamma, save_mean, save_invstd from a training forward -> dx ("="), dgamma += , dbeta +=.
void batch_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                         const Tensor& save_mean, const Tensor& save_invstd, Tensor& dx,
                         Tensor& dgamma, Tensor& dbeta);

namespace op {

// check() fills the record: x viewed as (n, c, l).
struct BatchNormForwardTrain {
  static constexpr const char* kName = "batch_norm_forward_train";
  const Tensor& x;
  const Tensor& gamma;
  const Tensor& beta;
  Tensor& running_mean;
  Tensor& running_var;
  Tensor& y;
  Tensor& save_mean;
  Tensor& save_invstd;
  float momentum, eps;
  rec::BatchNormForwardTrain record{};
  void check();
  Device device() const { return x.device(); }
};

struct BatchNormForwardEval {
  static constexpr const char* kName = "batch_norm_forward_eval";
  const Tensor& x;
  const Tensor& gamma;
  const Tensor& beta;
  const Tensor& running_mean;
  const Tensor& running_var;
  Tensor& y;
  float eps;
  rec::BatchNormForwardEval record{};
  void check();
  Device device() const { return x.device(); }
};

struct BatchNormBackward {
  static constexpr const char* kName = "batch_norm_backward";
  const Tensor& dy;
  const Tensor& x;
  const Tensor& gamma;
  const Tensor& save_mean;
  const Tensor& save_invstd;
  Tensor& dx;
  Tensor& dgamma;
  Tensor& dbeta;
  rec::BatchNormBackward record{};
  void check();
  Device device() const { return x.device(); }
};

}  // namespace op
}  // namespace kiln
