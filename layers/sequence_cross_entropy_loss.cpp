#include "kiln/layers/sequence_cross_entropy_loss.h"

#include "kiln/core/ops.h"

namespace kiln {

SequenceCrossEntropyLoss::SequenceCrossEntropyLoss(std::int32_t ignore_index)
    : ignore_index_(ignore_index) {
  KILN_CHECK(ignore_index != kNoIgnoreIndex,
             "SequenceCrossEntropyLoss: {} cannot be the ignore index", ignore_index);
}

std::string SequenceCrossEntropyLoss::describe() const {
  return fmt::format("SequenceCrossEntropyLoss(ignore_index={})", ignore_index_);
}

const Tensor& SequenceCrossEntropyLoss::compute(const Tensor& logits, const Tensor& labels) {
  KILN_CHECK(logits.defined() && logits.rank() == 3 && logits.size(2) > 0,
             "SequenceCrossEntropyLoss: logits must be (batch, positions, vocabulary), found {}",
             logits.defined() ? logits.shape().str() : std::string("an undefined tensor"));
  KILN_CHECK(
      labels.rank() == 2 && labels.size(0) == logits.size(0) && labels.size(1) == logits.size(1),
      "SequenceCrossEntropyLoss: labels must be (batch, positions) = ({}, {}) to match logits {}, "
      "found {}",
      logits.size(0), logits.size(1), logits.shape().str(), labels.shape().str());
  const std::int64_t rows = logits.size(0) * logits.size(1);
  KILN_CHECK(rows > 0, "SequenceCrossEntropyLoss: an empty batch has no mean loss");
  const Device device = logits.device();
  const Tensor flat_logits = logits.view(Shape{rows, logits.size(2)});
  labels_ = labels.view(Shape{rows});
  logits_shape_ = logits.shape();
  Tensor& probs = reuse_buffer(probs_, flat_logits.shape(), DType::f32, device);
  Tensor& losses = reuse_buffer(losses_, {rows}, DType::f32, device);
  Tensor& counted = reuse_buffer(counted_, {rows}, DType::f32, device);
  softmax_cross_entropy_forward_ignoring(flat_logits, labels_, ignore_index_, probs, losses,
                                         counted);
  Tensor& loss_sum = reuse_buffer(loss_sum_, Shape{}, DType::f32, device);
  Tensor& count = reuse_buffer(count_, Shape{}, DType::f32, device);
  Tensor& loss = reuse_buffer(loss_, Shape{}, DType::f32, device);
  reduce(ReduceOp::sum, losses, 0, loss_sum);
  reduce(ReduceOp::sum, counted, 0, count);
  binary(BinaryOp::div, loss_sum, count, loss);
  return loss;
}

const Tensor& SequenceCrossEntropyLoss::backward(float scale) {
  KILN_CHECK(labels_.defined(), "SequenceCrossEntropyLoss: backward called before forward");
  Tensor& dlogits = reuse_buffer(dlogits_, probs_.shape(), DType::f32, probs_.device());
  softmax_cross_entropy_backward_ignoring(probs_, labels_, ignore_index_, count_, dlogits, scale);
  dlogits_view_ = dlogits.view(logits_shape_);
  return dlogits_view_;
}

}  // namespace kiln
