// The batch_norm ops' records, filled by check() (core/ops/batch_norm.cpp) and taken by the CPU
// bodies (core/cpu/batch_norm.cpp) and the CUDA launches (core/cuda/batch_norm.cu): x, y, dy, dx
// viewed as (n, c, l); every per-channel tensor (c).
#pragma once

#include "kiln/core/host_device.h"
#include "kiln/core/op_record.h"

namespace kiln::rec {

struct BatchNormForwardTrain {
  Index n, c, l;
  const float* x;
  const float* gamma;
  const float* beta;
  float momentum, eps;
  float* running_mean;  // updated in place
  float* running_var;   // updated in place, with the unbiased variance
  float* y;             // "="
  float* save_mean;     // "="
  float* save_invstd;   // "="
};

// The running statistics after a training batch of m values of one channel, whose mean and
// biased variance (what the batch is normalised by) are given: the variance kept is the unbiased
// estimate, as PyTorch keeps it. The CPU body and the CUDA kernel both call it.
KILN_HOST_DEVICE void update_running_statistics(float momentum, float mean, double var, Index m,
                                                float& running_mean, float& running_var) {
  const float unbiased =
      static_cast<float>(var * static_cast<double>(m) / static_cast<double>(m - 1));
  running_mean = (1.0f - momentum) * running_mean + momentum * mean;
  running_var = (1.0f - momentum) * running_var + momentum * unbiased;
}

struct BatchNormForwardEval {
  Index n, c, l;
  const float* x;
  const float* gamma;
  const float* beta;
  const float* running_mean;
  const float* running_var;
  float eps;
  float* y;  // "="
};

struct BatchNormBackward {
  Index n, c, l;
  const float* x;
  const float* dy;
  const float* gamma;
  const float* save_mean;
  const float* save_invstd;
  float* dx;      // "="
  float* dgamma;  // "+="
  float* dbeta;   // "+="
};

}  // namespace kiln::rec

namespace kiln::cuda {
// Queued on `stream`, checked, never synchronising the host.
void batch_norm_forward_train(const rec::BatchNormForwardTrain& o, cudaStream_t stream);
void batch_norm_forward_eval(const rec::BatchNormForwardEval& o, cudaStream_t stream);
void batch_norm_backward(const rec::BatchNormBackward& o, cudaStream_t stream);
}  // namespace kiln::cuda
