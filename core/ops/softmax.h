// softmax, log_softmax and the fused softmax cross-entropy, along the last axis (checks in
// core/ops/softmax.cpp; kernels in core/cpu/softmax.cpp and core/cuda/softmax.cpp).
#pragma once

#include <climits>
#include <cstdint>

#include "kiln/core/ops/softmax_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// x viewed as (rows, C); x, y: same shape -> y = softmax(x) or log_softmax(x).
void softmax(const Tensor& x, Tensor& y);
void log_softmax(const Tensor& x, Tensor& y);
// Fused, numerically stable softmax cross-entropy with class-index labels and label smoothing
// eps (targets (1 - eps) on the label + eps / C everywhere).
// logits: (N, C), labels: (N) int32 in [0, C), probs: (N, C), losses: (N) -> probs = softmax,
// losses[i] = -sum_c target_ic * log probs_ic. On the CPU an out-of-range label throws naming
// the sample; on a GPU its loss is NaN (the host is not synchronised to check).
void softmax_cross_entropy_forward(const Tensor& logits, const Tensor& labels, Tensor& probs,
                                   Tensor& losses, float label_smoothing = 0.0f);
// probs, labels as above, dlogits: (N, C) -> dlogits = grad_scale * (probs - target).
// For a mean over the batch, grad_scale = 1 / N.
void softmax_cross_entropy_backward(const Tensor& probs, const Tensor& labels, Tensor& dlogits,
                                    float grad_scale, float label_smoothing = 0.0f);

// No label is ignored: every row's label must be a class.
inline constexpr std::int32_t kNoIgnoreIndex = INT32_MIN;

// The same with an ignore index (PyTorch's ignore_index): a row whose label is `ignore_index`
// gets loss 0, counted 0 and a zero gradient; every other row is counted 1 (a sequence's padded
// or masked positions). counted: (N) float32. For the mean over the counted rows, give backward
// the sum of `counted` as `divisor` (a () float32 tensor on the device, read there, so nothing
// waits for the GPU): dlogits = grad_scale / divisor * (probs - target) on the counted rows.
void softmax_cross_entropy_forward_ignoring(const Tensor& logits, const Tensor& labels,
                                            std::int32_t ignore_index, Tensor& probs,
                                            Tensor& losses, Tensor& counted);
void softmax_cross_entropy_backward_ignoring(const Tensor& probs, const Tensor& labels,
                                             std::int32_t ignore_index, const Tensor& divisor,
                                             Tensor& dlogits, float grad_scale);

namespace op {

// softmax and log_softmax (one op each in the table); check() fills the record.
template <bool kLog> struct SoftmaxOf {
  static constexpr const char* kName = kLog ? "log_softmax" : "softmax";
  const Tensor& x;
  Tensor& y;
  rec::Softmax record{};
  void check();
  Device device() const { return x.device(); }
};
using Softmax = SoftmaxOf<false>;
using LogSoftmax = SoftmaxOf<true>;

struct SoftmaxCrossEntropyForward {
  static constexpr const char* kName = "softmax_cross_entropy_forward";
  const Tensor& logits;
  const Tensor& labels;
  Tensor& probs;
  Tensor& losses;
  float label_smoothing;
  std::int32_t ignore_index = kNoIgnoreIndex;
  Tensor* counted = nullptr;  // with an ignore index: (N) 1 or 0 per row
  rec::SoftmaxCrossEntropyForward record{};
  void check();
  Device device() const { return logits.device(); }
};

struct SoftmaxCrossEntropyBackward {
  static constexpr const char* kName = "softmax_cross_entropy_backward";
  const Tensor& probs;
  const Tensor& labels;
  Tensor& dlogits;
  float grad_scale;
  float label_smoothing;
  std::int32_t ignore_index = kNoIgnoreIndex;
  const Tensor* divisor = nullptr;  // () float32 on the device: grad_scale is divided by it
  rec::SoftmaxCrossEntropyBackward record{};
  void check();
  Device device() const { return probs.device(); }
};

}  // namespace op
}  // namespace kiln
