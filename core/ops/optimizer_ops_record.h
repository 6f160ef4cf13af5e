// The optimizer ops' records, filled by check() (core/ops/optimizer_ops.cpp) and taken by the CPU
// bodies (core/cpu/optimizer_ops.cpp) and the CUDA launches (core/cuda/optimizer_ops.cu). Each
// holds lists of `count` tensors on one device: tensor t has sizes[t] elements at params[t],
// grads[t], ... The arrays of sizes and pointers are host memory the op owns, alive while its
// kernel runs; element formulas and hyper-parameters in core/optimizer_math.h.
#pragma once

#include "kiln/core/op_record.h"
#include "kiln/core/optimizer_math.h"

namespace kiln::rec {

// With per_step.rows set, the learning rate (SGD) or the AdamScalars (Adam) come from the row
// at the cursor instead of config (scalars), and the cursor then advances by one.
struct SgdStep {
  int count;
  const Index* sizes;
  float* const* params;
  const float* const* grads;
  float* const* momentum_buffers;  // null when momentum == 0
  SgdConfig config;
  bool first_step;  // the buffers are only written (buf = g)
  StepRowsOnDevice per_step;
  std::uint16_t* const* bf16_copies;  // CPU: null, or per parameter (null where it keeps none)
};

struct AdamStep {
  int count;
  const Index* sizes;
  float* const* params;
  const float* const* grads;
  float* const* exp_avg;
  float* const* exp_avg_sq;
  AdamConfig config;
  AdamScalars scalars;
  StepRowsOnDevice per_step;
  std::uint16_t* const* bf16_copies;  // as SgdStep's
  const std::uint8_t* decayed;        // null: every tensor; else per tensor, 0 for weight decay 0
};

struct MultiSumSquares {
  int count;
  const Index* sizes;
  const float* const* xs;
  float* out;  // (1), "="
};

struct ClipByGlobalNorm {
  int count;
  const Index* sizes;
  float* const* xs;      // scaled in place
  const float* norm_sq;  // (1), read on the device
  float max_norm;
  float* norm;  // (1) or null, "=" after the scaling (so it may be norm_sq)
};

struct Clamp {
  int count;
  const Index* sizes;
  float* const* xs;  // clamped in place
  float lo, hi;
};

}  // namespace kiln::rec

namespace kiln::cuda {
// One launch per 64 tensors (and, with per-step rows, one more that advances the cursor),
// queued on `stream`, checked, never synchronising the host.
void sgd_step(const rec::SgdStep& o, cudaStream_t stream);
void adam_step(const rec::AdamStep& o, cudaStream_t stream);
void multi_sum_squares(const rec::MultiSumSquares& o, cudaStream_t stream);
void clip_by_global_norm(const rec::ClipByGlobalNorm& o, cudaStream_t stream);
void clamp_(const rec::Clamp& o, cudaStream_t stream);
}  // namespace kiln::cuda
