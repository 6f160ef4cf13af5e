// Softmax cross-entropy over a sequence: logits (B, T, V) against next-token labels (B, T)
// int32, the mean over the positions that count. It is the fused cross-entropy op over the
// (B * T, V) view, so it shares its kernels (and their numerics) with CrossEntropyLoss; the count
// of positions stays on the device (no wait for a GPU).
#pragma once

#include <cstdint>

#include "kiln/layers/loss.h"

namespace kiln {

class SequenceCrossEntropyLoss : public Loss {
 public:
  // A position whose label is the ignore index (default -1, as PyTorch's ignore_index is -100 and
  // nanoGPT's -1) contributes nothing to the loss, is not counted in the mean and gets a zero
  // gradient. All positions ignored: NaN, as in PyTorch.
  // Throws kiln::Error for kNoIgnoreIndex (core/ops/softmax.h): every sequence loss has one.
  explicit SequenceCrossEntropyLoss(std::int32_t ignore_index = -1);

  // forward(logits, labels): logits (B, T, V), labels (B, T) int32 in [0, V) or the ignore index
  // -> () mean loss over the counted positions.
  // -> dlogits: (B, T, V), the gradient of that mean times `scale`.
  const Tensor& backward(float scale = 1.0f) override;
  std::string describe() const override;
  bool expects_class_labels() const override { return true; }
  bool reports_perplexity() const override { return true; }
  std::int32_t ignore_index() const { return ignore_index_; }
  // () float32: how many positions the last forward counted.
  const Tensor& counted_positions() const { return count_; }

 private:
  const Tensor& compute(const Tensor& logits, const Tensor& labels) override;

  std::int32_t ignore_index_;
  Shape logits_shape_;
  Tensor labels_, probs_, losses_, counted_, loss_sum_, count_, loss_, dlogits_;
  Tensor dlogits_view_;  // dlogits_ as (B, T, V)
};

}  // namespace kiln
