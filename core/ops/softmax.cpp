// The softmax ops' checks and public entry points.
#include "kiln/core/ops/softmax.h"

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace {
// Checks shared by both directions: a (N, C) float tensor and (N) int32 labels on its device.
void check_cross_entropy(const char* op, const char* name, const Tensor& matrix,
                         const Tensor& labels, float label_smoothing) {
  detail::check_operands(op, {{name, &matrix}}, DType::f32);
  detail::check_operands(op, {{"labels", &labels}}, DType::i32);
  detail::check_same_device(op, {{name, &matrix}, {"labels", &labels}});
  KILN_CHECK(matrix.rank() == 2 && matrix.size(1) > 0, "{}: {} must be (batch, classes), found {}",
             op, name, matrix.shape().str());
  KILN_CHECK(labels.rank() == 1 && labels.size(0) == matrix.size(0),
             "{}: labels {} must hold one class index per row of {} {}: the batch sizes differ", op,
             labels.shape().str(), name, matrix.shape().str());
  KILN_CHECK(label_smoothing >= 0.0f && label_smoothing < 1.0f,
             "{}: label smoothing must be in [0, 1), found {}", op, label_smoothing);
}
}  // namespace

namespace op {

template <bool kLog> void SoftmaxOf<kLog>::check() {
  detail::check_alike(kName, {{"x", &x}, {"y", &y}}, DType::f32);
  KILN_CHECK(x.rank() >= 1 && x.size(-1) > 0, "{}: x needs a non-empty last axis, found {}", kName,
             x.shape().str());
  const std::int64_t cols = x.size(-1);
  record = {x.numel() / cols, cols, x.data<float>(), y.data<float>(), kLog};
}
template struct SoftmaxOf<false>;
template struct SoftmaxOf<true>;

void SoftmaxCrossEntropyForward::check() {
  check_cross_entropy(kName, "logits", logits, labels, label_smoothing);
  detail::check_operands(kName, {{"probs", &probs}, {"losses", &losses}}, DType::f32);
  detail::check_same_device(kName, {{"logits", &logits}, {"probs", &probs}, {"losses", &losses}});
  detail::check_same_shape(kName, {{"logits", &logits}, {"probs", &probs}});
  detail::check_shape(kName, {"losses", &losses}, Shape{logits.size(0)});
  KILN_CHECK((counted != nullptr) == (ignore_index != kNoIgnoreIndex),
             "{}: an ignore index needs the counted rows' output, and only it", kName);
  if (counted != nullptr) {
    detail::check_operands(kName, {{"counted", counted}}, DType::f32);
    detail::check_same_device(kName, {{"logits", &logits}, {"counted", counted}});
    detail::check_shape(kName, {"counted", counted}, Shape{logits.size(0)});
  }
  record = {logits.size(0),
            logits.size(1),
            logits.data<float>(),
            labels.data<std::int32_t>(),
            label_smoothing,
            probs.data<float>(),
            losses.data<float>(),
            ignore_index,
            counted != nullptr ? counted->data<float>() : nullptr};
}

void SoftmaxCrossEntropyBackward::check() {
  check_cross_entropy(kName, "probs", probs, labels, label_smoothing);
  detail::check_operands(kName, {{"dlogits", &dlogits}}, DType::f32);
  detail::check_same_device(kName, {{"probs", &probs}, {"dlogits", &dlogits}});
  detail::check_same_shape(kName, {{"probs", &probs}, {"dlogits", &dlogits}});
  if (divisor != nullptr) {
    detail::check_operands(kName, {{"divisor", divisor}}, DType::f32);
    detail::check_same_device(kName, {{"probs", &probs}, {"divisor", divisor}});
    detail::check_shape(kName, {"divisor", divisor}, Shape{});
  }
  record = {probs.size(0),        probs.size(1),
            probs.data<float>(),  labels.data<std::int32_t>(),
            grad_scale,           label_smoothing,
            ignore_index,         divisor != nullptr ? divisor->data<float>() : nullptr,
            dlogits.data<float>()};
}

}  // namespace op

void softmax(const Tensor& x, Tensor& y) { run(op::Softmax{x, y}); }
void log_softmax(const Tensor& x, Tensor& y) { run(op::LogSoftmax{x, y}); }

void softmax_cross_entropy_forward(const Tensor& logits, const Tensor& labels, Tensor& probs,
                                   Tensor& losses, float label_smoothing) {
  run(op::SoftmaxCrossEntropyForward{logits, labels, probs, losses, label_smoothing});
}

void softmax_cross_entropy_backward(const Tensor& probs, const Tensor& labels, Tensor& dlogits,
                                    float grad_scale, float label_smoothing) {
  run(op::SoftmaxCrossEntropyBackward{probs, labels, dlogits, grad_scale, label_smoothing});
}

void softmax_cross_entropy_forward_ignoring(const Tensor& logits, const Tensor& labels,
                                            std::int32_t ignore_index, Tensor& probs,
                                            Tensor& losses, Tensor& counted) {
  KILN_CHECK(ignore_index != kNoIgnoreIndex,
             "softmax_cross_entropy_forward_ignoring: {} is no ignore index", ignore_index);
  run(op::SoftmaxCrossEntropyForward{logits, labels, probs, losses, 0.0f, ignore_index, &counted});
}

void softmax_cross_entropy_backward_ignoring(const Tensor& probs, const Tensor& labels,
                                             std::int32_t ignore_index, const Tensor& divisor,
                                             Tensor& dlogits, float grad_scale) {
  run(op::SoftmaxCrossEntropyBackward{probs, labels, dlogits, grad_scale, 0.0f, ignore_index,
                                      &divisor});
}

}  // namespace kiln
