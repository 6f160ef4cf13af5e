#include "kiln/layers/cross_entropy_loss.h"

#include "kiln/core/ops.h"

namespace kiln {

CrossEntropyLoss::CrossEntropyLoss(float label_smoothing) : label_smoothing_(label_smoothing) {
  KILN_CHECK(label_smoothing >= 0.0f && label_smoothing < 1.0f,
             "CrossEntropyLoss: label smoothing must be in [0, 1), found {}", label_smoothing);
}

std::string CrossEntropyLoss::describe() const {
  return label_smoothing_ > 0.0f
             ? fmt::format("CrossEntropyLoss(label_smoothing={})", label_smoothing_)
             : std::string("CrossEntropyLoss");
}

const Tensor& CrossEntropyLoss::compute(const Tensor& logits, const Tensor& labels) {
  KILN_CHECK(logits.defined() && logits.rank() == 2,
             "CrossEntropyLoss: logits must be (batch, classes), found {}",
             logits.defined() ? logits.shape().str() : std::string("an undefined tensor"));
  const Device device = logits.device();
  Tensor& probs = reuse_buffer(probs_, logits.shape(), DType::f32, device);
  Tensor& losses = reuse_buffer(losses_, {logits.size(0)}, DType::f32, device);
  softmax_cross_entropy_forward(logits, labels, probs, losses, label_smoothing_);
  Tensor& loss = reuse_buffer(loss_, Shape{}, DType::f32, device);
  KILN_CHECK(logits.size(0) > 0, "CrossEntropyLoss: an empty batch has no mean loss");
  reduce(ReduceOp::mean, losses, 0, loss);
  labels_ = labels;
  return loss;
}

const Tensor& CrossEntropyLoss::backward(float scale) {
  KILN_CHECK(labels_.defined(), "CrossEntropyLoss: backward called before forward");
  Tensor& dlogits = reuse_buffer(dlogits_, probs_.shape(), DType::f32, probs_.device());
  softmax_cross_entropy_backward(probs_, labels_, dlogits,
                                 scale / static_cast<float>(probs_.size(0)), label_smoothing_);
  return dlogits;
}

}  // namespace kiln
