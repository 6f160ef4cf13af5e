// Multi-tensor optimizer ops over lists of float32 tensors on one device (checks in
// core/ops/optimizer_ops.cpp; kernels in core/cpu/optimizer_ops.cpp and
// core/cuda/optimizer_ops.cpp). check() validates the lists (lengths, dtype, shapes, one device)
// and hyper-parameters and gathers flat arrays of sizes and pointers into the record, so the CUDA
// side can pack up to 64 tensors into one launch.
#pragma once

#include <span>
#include <vector>

#include "kiln/core/ops/optimizer_ops_record.h"
#include "kiln/core/optimizer_math.h"
#include "kiln/core/tensor.h"

namespace kiln {

// Tensor i of each list has the shape of params[i] or tensors[i]. On a GPU each op is one fused
// launch per 64 tensors (a block per chunk of one tensor): nothing is allocated per step and the
// host never waits. The per-element formulas, PyTorch's, are in core/optimizer_math.h.
// Per-step scalars kept beside the parameters, for an update recorded once into a CUDA graph and
// replayed (core/optimizer_math.h, StepRowsOnDevice): rows (n, width) float32, a row per update
// to come (width 1 for SGD: the learning rate; 5 for Adam: an AdamScalars), and cursor (1) int32,
// the row of the next update. An update given them reads row `cursor` in place of its learning
// rate (and step) argument and then adds 1 to the cursor, both on the parameters' device.
struct StepScalarRows {
  const Tensor* rows = nullptr;
  Tensor* cursor = nullptr;
};
// bf16_copies (CPU, MatmulPrecision::bf16): empty, or per parameter its bf16 copy (Bf16Shadow;
// undefined where it keeps none), rewritten from the updated value in the update's own pass.
// params, grads (, momentum_buffers: empty when momentum == 0) -> one torch.optim.SGD step. On
// the first step the buffers are only written (buf = g), so they may start uninitialised.
void sgd_step(std::span<Tensor* const> params, std::span<const Tensor* const> grads,
              std::span<Tensor* const> momentum_buffers, const SgdConfig& config, bool first_step,
              const StepScalarRows* per_step = nullptr, std::span<Tensor* const> bf16_copies = {});
// params, grads, exp_avg, exp_avg_sq -> one torch.optim.Adam / AdamW step; step counts from 1
// (the first update) for the bias corrections; the moments start at zero. decayed: empty (every
// tensor takes config.weight_decay), or one flag per tensor: 0 updates that tensor with weight
// decay 0, as a PyTorch parameter group of weight_decay 0 would (two groups in one launch).
void adam_step(std::span<Tensor* const> params, std::span<const Tensor* const> grads,
               std::span<Tensor* const> exp_avg, std::span<Tensor* const> exp_avg_sq,
               const AdamConfig& config, std::int64_t step,
               const StepScalarRows* per_step = nullptr, std::span<Tensor* const> bf16_copies = {},
               std::span<const std::uint8_t> decayed = {});
// tensors -> out: (1) = sum of squares of every element of every tensor, accumulated in double
// in an order fixed by the sizes alone (no atomics), so repeated calls give the same bits.
void multi_sum_squares(std::span<const Tensor* const> tensors, Tensor& out);
// tensors, norm_sq: (1) from multi_sum_squares -> every tensor *= min(1, max_norm / (sqrt(norm_sq)
// + 1e-6)), read on the device (no host sync); left untouched when the factor is 1. norm: (1),
// optional -> sqrt(norm_sq), written after the scaling, so it may be norm_sq itself.
void clip_by_global_norm(std::span<Tensor* const> tensors, const Tensor& norm_sq, float max_norm,
                         Tensor* norm = nullptr);
// tensors -> every element clamped to [lo, hi] (NaN stays NaN, as torch.clamp).
void clamp_(std::span<Tensor* const> tensors, float lo, float hi);
void clamp_(Tensor& x, float lo, float hi);

namespace op {

// What check() gathers, and the record points into: the sizes and data pointers of the lists.
struct TensorLists {
  std::vector<std::int64_t> sizes;
  std::vector<float*> a, b, c, d;  // the op's lists in its order (params, grads, ...)
};

// check() also reads the per-step rows (StepRowsOnDevice: empty without them) and the bf16
// copies' bits (empty, or one per parameter, null where it keeps none).
struct SgdStep {
  static constexpr const char* kName = "sgd_step";
  std::span<Tensor* const> params;
  std::span<const Tensor* const> grads;
  std::span<Tensor* const> momentum_buffers;
  SgdConfig config;
  bool first_step;
  const StepScalarRows* per_step;
  std::span<Tensor* const> bf16_copies;
  TensorLists lists{};  // a: params, b: grads, c: momentum buffers (empty without momentum)
  std::vector<std::uint16_t*> copies{};
  rec::SgdStep record{};
  void check_config() const;
  void check();
  Device device() const { return params[0]->device(); }
};

struct AdamStep {
  static constexpr const char* kName = "adam_step";
  std::span<Tensor* const> params;
  std::span<const Tensor* const> grads;
  std::span<Tensor* const> exp_avg;
  std::span<Tensor* const> exp_avg_sq;
  AdamConfig config;
  std::int64_t step;
  const StepScalarRows* per_step;
  std::span<Tensor* const> bf16_copies;
  std::span<const std::uint8_t> decayed;  // empty: all
  TensorLists lists{};                    // a: params, b: grads, c: exp_avg, d: exp_avg_sq
  std::vector<std::uint16_t*> copies{};
  rec::AdamStep record{};
  void check_config() const;
  void check();
  Device device() const { return params[0]->device(); }
};

struct MultiSumSquares {
  static constexpr const char* kName = "multi_sum_squares";
  std::span<const Tensor* const> tensors;
  Tensor& out;
  TensorLists lists{};  // a: tensors
  rec::MultiSumSquares record{};
  void check();
  Device device() const { return tensors.empty() ? out.device() : tensors[0]->device(); }
};

struct ClipByGlobalNorm {
  static constexpr const char* kName = "clip_by_global_norm";
  std::span<Tensor* const> tensors;
  const Tensor& norm_sq;
  float max_norm;
  Tensor* norm;
  TensorLists lists{};  // a: tensors
  rec::ClipByGlobalNorm record{};
  void check();
  Device device() const { return tensors.empty() ? norm_sq.device() : tensors[0]->device(); }
};

struct Clamp {
  static constexpr const char* kName = "clamp_";
  std::span<Tensor* const> tensors;
  float lo, hi;
  TensorLists lists{};  // a: tensors
  rec::Clamp record{};
  void check_range() const;
  void check();
  Device device() const { return tensors[0]->device(); }
};

}  // namespace op
}  // namespace kiln
