// softmax, log_softmax and the fused softmax cross-entropy.
#include "kiln/core/cpu/kernels.h"
#include "kiln/core/cuda/kernels.h"
#include "kiln/core/dispatch.h"
#include "kiln/core/ops.h"

namespace kiln {

namespace {
void softmax_any(const char* op, const Tensor& x, Tensor& y, bool log) {
  detail::check_operands(op, {{"x", &x}, {"y", &y}}, DType::f32);
  detail::check_same_device(op, {{"x", &x}, {"y", &y}});
  detail::check_same_shape(op, {{"x", &x}, {"y", &y}});
  KILN_CHECK(x.rank() >= 1 && x.size(-1) > 0, "{}: x needs a non-empty last axis, found {}", op,
             x.shape().str());
  const std::int64_t cols = x.size(-1), rows = x.numel() / cols;
  if (x.device().is_cpu()) return cpu::softmax(rows, cols, x.data<float>(), y.data<float>(), log);
  KILN_ON_CUDA(op, cuda::softmax(rows, cols, x.data<float>(), y.data<float>(), log,
                                 detail::prepare_cuda(x.device())));
}

// Checks shared by both directions: a (N, C) float tensor and (N) int32 labels on its device.
void check_cross_entropy(const char* op, const char* name, const Tensor& matrix,
                         const Tensor& labels, float label_smoothing) {
  detail::check_operands(op, {{name, &matrix}}, DType::f32);
  detail::check_operands(op, {{"labels", &labels}}, DType::i32);
  detail::check_same_device(op, {{name, &matrix}, {"labels", &labels}});
  KILN_CHECK(matrix.rank() == 2 && matrix.size(1) > 0,
             "{}: {} must be (batch, classes), found {}", op, name, matrix.shape().str());
  KILN_CHECK(labels.rank() == 1 && labels.size(0) == matrix.size(0),
             "{}: labels {} must hold one class index per row of {} {}: the batch sizes differ",
             op, labels.shape().str(), name, matrix.shape().str());
  KILN_CHECK(label_smoothing >= 0.0f && label_smoothing < 1.0f,
             "{}: label smoothing must be in [0, 1), found {}", op, label_smoothing);
}
}  // namespace

void softmax(const Tensor& x, Tensor& y) { softmax_any("softmax", x, y, false); }
void log_softmax(const Tensor& x, Tensor& y) { softmax_any("log_softmax", x, y, true); }

void softmax_cross_entropy_forward(const Tensor& logits, const Tensor& labels, Tensor& probs,
                                   Tensor& losses, float label_smoothing) {
  constexpr const char* op = "softmax_cross_entropy_forward";
  check_cross_entropy(op, "logits", logits, labels, label_smoothing);
  detail::check_operands(op, {{"probs", &probs}, {"losses", &losses}}, DType::f32);
  detail::check_same_device(op, {{"logits", &logits}, {"probs", &probs}, {"losses", &losses}});
  detail::check_same_shape(op, {{"logits", &logits}, {"probs", &probs}});
  detail::check_shape(op, {"losses", &losses}, Shape{logits.size(0)});
  const std::int64_t rows = logits.size(0), cols = logits.size(1);
  if (logits.device().is_cpu()) {
    const std::int64_t bad = cpu::softmax_cross_entropy_forward(
        rows, cols, logits.data<float>(), labels.data<std::int32_t>(), label_smoothing,
        probs.data<float>(), losses.data<float>());
    KILN_CHECK(bad < 0, "labels must be in [0, {}): found {} at sample {} of the batch", cols,
               bad < 0 ? 0 : labels.data<std::int32_t>()[bad], bad);
    return;
  }
  KILN_ON_CUDA(op, cuda::softmax_cross_entropy_forward(
                       rows, cols, logits.data<float>(), labels.data<std::int32_t>(),
                       label_smoothing, probs.data<float>(), losses.data<float>(),
                       detail::prepare_cuda(logits.device())));
}

void softmax_cross_entropy_backward(const Tensor& probs, const Tensor& labels, Tensor& dlogits,
                                    float grad_scale, float label_smoothing) {
  constexpr const char* op = "softmax_cross_entropy_backward";
  check_cross_entropy(op, "probs", probs, labels, label_smoothing);
  detail::check_operands(op, {{"dlogits", &dlogits}}, DType::f32);
  detail::check_same_device(op, {{"probs", &probs}, {"dlogits", &dlogits}});
  detail::check_same_shape(op, {{"probs", &probs}, {"dlogits", &dlogits}});
  const std::int64_t rows = probs.size(0), cols = probs.size(1);
  if (probs.device().is_cpu())
    return cpu::softmax_cross_entropy_backward(rows, cols, probs.data<float>(),
                                               labels.data<std::int32_t>(), grad_scale,
                                               label_smoothing, dlogits.data<float>());
  KILN_ON_CUDA(op, cuda::softmax_cross_entropy_backward(
                       rows, cols, probs.data<float>(), labels.data<std::int32_t>(), grad_scale,
                       label_smoothing, dlogits.data<float>(), detail::prepare_cuda(probs.device())));
}

}  // namespace kiln
