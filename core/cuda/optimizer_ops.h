// The launches of core/cuda/optimizer_ops.cu on raw device pointers, queued on `stream`; every
// launch is checked and none synchronises the host. core/cuda/optimizer_ops.cpp registers them in
// the op table.
#pragma once

#include "kiln/core/cuda/backend.h"
#include "kiln/core/optimizer_math.h"

namespace kiln::cuda {

// optimizer_ops.cu — lists of `count` tensors: tensor t has sizes[t] elements at params[t],
// grads[t], ... (momentum_buffers is null when momentum == 0). Element formulas:
// core/optimizer_math.h. One launch per 64 tensors; norm_sq and norm are device pointers. With
// per_step.rows set, the learning rate (SGD) or the AdamScalars (Adam) come from the device row
// at the cursor instead of the arguments, and one more launch then advances the cursor. Adam's
// decayed: null (every tensor takes config.weight_decay) or a host flag per tensor, 0 for none.
void sgd_step(int count, const Index* sizes, float* const* params, const float* const* grads,
              float* const* momentum_buffers, const SgdConfig& config, bool first_step,
              const StepRowsOnDevice& per_step, cudaStream_t stream);
void adam_step(int count, const Index* sizes, float* const* params, const float* const* grads,
               float* const* exp_avg, float* const* exp_avg_sq, const AdamConfig& config,
               const AdamScalars& scalars, const StepRowsOnDevice& per_step,
               const std::uint8_t* decayed, cudaStream_t stream);
void multi_sum_squares(int count, const Index* sizes, const float* const* xs, float* out,
                       cudaStream_t stream);
void clip_by_global_norm(int count, const Index* sizes, float* const* xs, const float* norm_sq,
                         float max_norm, float* norm, cudaStream_t stream);
void clamp_(int count, const Index* sizes, float* const* xs, float lo, float hi,
            cudaStream_t stream);

}  // namespace kiln::cuda
