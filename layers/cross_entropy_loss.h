// Softmax cross-entropy from logits with class-index labels: the mean over the batch of
// -sum_c target_c log softmax(logits)_c, with optional label smoothing (targets (1 - eps) on the
// label plus eps / C everywhere, as PyTorch's CrossEntropyLoss). Numerically stable (fused
// log-sum-exp). The loss stays on the device as a scalar tensor until someone reads it.
#pragma once

#include "kiln/layers/loss.h"

namespace kiln {

class CrossEntropyLoss : public Loss {
 public:
  explicit CrossEntropyLoss(float label_smoothing = 0.0f);

  // logits: (N, C), labels: (N) int32 in [0, C) on the same device -> () mean loss.
  // An out-of-range label throws on the CPU (naming the sample) and gives NaN on a GPU.
  const Tensor& forward(const Tensor& logits, const Tensor& labels) override;
  // -> dlogits: (N, C), the gradient of the mean loss times `scale` (1, or a loss scale).
  const Tensor& backward(float scale = 1.0f) override;
  std::string describe() const override;
  const Tensor& per_sample_losses() const { return losses_; }

 private:
  float label_smoothing_;
  Tensor labels_, probs_, losses_, loss_, dlogits_;
};

}  // namespace kiln
