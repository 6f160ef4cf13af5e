// CPU softmax, log_softmax and the fused softmax cross-entropy over rows of length cols. Every
// row is shifted by its maximum before exp (so exp never overflows) and its sum of exps is taken
// in double; cross-entropy uses log p = x - logsumexp(x) rather than log(softmax), so a
// vanishing probability gives a large finite loss, never log(0).
#include <cmath>
#include <cstdint>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/ops/softmax.h"

namespace kiln::cpu {

namespace {

constexpr Index kParallelMin = 32768;

// log(sum_c exp(row_c)), computed as max + log(sum exp(row - max)).
double log_sum_exp(Index cols, const float* row) {
  float m = row[0];
  for (Index c = 1; c < cols; ++c) m = row[c] > m ? row[c] : m;
  double sum = 0.0;
  for (Index c = 0; c < cols; ++c) sum += std::exp(static_cast<double>(row[c]) - m);
  return m + std::log(sum);
}

}  // namespace

void softmax(Index rows, Index cols, const float* x, float* y, bool log) {
#pragma omp parallel for if (rows * cols > kParallelMin) schedule(static)
  for (Index r = 0; r < rows; ++r) {
    const float* in = x + r * cols;
    float* out = y + r * cols;
    const double lse = log_sum_exp(cols, in);
    for (Index c = 0; c < cols; ++c) {
      const double log_p = in[c] - lse;
      out[c] = static_cast<float>(log ? log_p : std::exp(log_p));
    }
  }
}

Index softmax_cross_entropy_forward(Index rows, Index cols, const float* logits,
                                    const std::int32_t* labels, float label_smoothing, float* probs,
                                    float* losses, std::int32_t ignore_index, float* counted) {
  // All labels are checked before anything is written, so a bad batch leaves the outputs as
  // they were.
  for (Index r = 0; r < rows; ++r)
    if (labels[r] != ignore_index && (labels[r] < 0 || labels[r] >= cols)) return r;

  // target_c = (1 - eps) [c == label] + eps / C, so
  // loss = -sum_c target_c log p_c = (1 - eps) (lse - x_label) + eps / C * sum_c (lse - x_c).
  const double eps = label_smoothing;
#pragma omp parallel for if (rows * cols > kParallelMin) schedule(static)
  for (Index r = 0; r < rows; ++r) {
    const float* in = logits + r * cols;
    float* p = probs + r * cols;
    const double lse = log_sum_exp(cols, in);
    double sum_neg_log_p = 0.0;
    for (Index c = 0; c < cols; ++c) {
      const double log_p = in[c] - lse;
      p[c] = static_cast<float>(std::exp(log_p));
      sum_neg_log_p -= log_p;
    }
    const bool ignored = labels[r] == ignore_index;
    if (counted != nullptr) counted[r] = ignored ? 0.0f : 1.0f;
    if (ignored) {
      losses[r] = 0.0f;
      continue;
    }
    double loss = (1.0 - eps) * (lse - in[labels[r]]);
    if (eps != 0.0) loss += eps / static_cast<double>(cols) * sum_neg_log_p;
    losses[r] = static_cast<float>(loss);
  }
  return -1;
}

void softmax_cross_entropy_backward(Index rows, Index cols, const float* probs,
                                    const std::int32_t* labels, float grad_scale,
                                    float label_smoothing, float* dlogits, std::int32_t ignore_index) {
  const float off_target = label_smoothing / static_cast<float>(cols);
  const float on_target = 1.0f - label_smoothing + off_target;
  // "=": dlogits is overwritten. The label is compared, never used as an index, so an invalid
  // one cannot write outside the row.
#pragma omp parallel for if (rows * cols > kParallelMin) schedule(static)
  for (Index r = 0; r < rows; ++r) {
    const float* p = probs + r * cols;
    float* d = dlogits + r * cols;
    if (labels[r] == ignore_index) {
      for (Index c = 0; c < cols; ++c) d[c] = 0.0f;
      continue;
    }
    for (Index c = 0; c < cols; ++c)
      d[c] = grad_scale * (p[c] - (c == labels[r] ? on_target : off_target));
  }
}

namespace {

template <bool kLog>
void softmax_kernel(op::SoftmaxOf<kLog>& o) {
  const Tensor& x = o.x;  // named: o's type depends on kLog, its tensors' do not
  Tensor& y = o.y;
  softmax(o.rows, o.cols, x.data<float>(), y.data<float>(), kLog);
}

void cross_entropy_forward_kernel(op::SoftmaxCrossEntropyForward& o) {
  const Index rows = o.logits.size(0), cols = o.logits.size(1);
  const Index bad = softmax_cross_entropy_forward(rows, cols, o.logits.data<float>(),
                                                  o.labels.data<std::int32_t>(), o.label_smoothing,
                                                  o.probs.data<float>(), o.losses.data<float>(), o.ignore_index,
                                                  o.counted ? o.counted->data<float>() : nullptr);
  KILN_CHECK(bad < 0, "labels must be in [0, {}): found {} at sample {} of the batch", cols,
             bad < 0 ? 0 : o.labels.data<std::int32_t>()[bad], bad);
}

void cross_entropy_backward_kernel(op::SoftmaxCrossEntropyBackward& o) {
  const float grad_scale = o.divisor ? o.grad_scale / o.divisor->data<float>()[0] : o.grad_scale;
  softmax_cross_entropy_backward(o.probs.size(0), o.probs.size(1), o.probs.data<float>(),
                                 o.labels.data<std::int32_t>(), grad_scale, o.label_smoothing,
                                 o.dlogits.data<float>(), o.ignore_index);
}

const RegisterKernel<op::Softmax> kSoftmax(Backend::reference, softmax_kernel<false>, "fp32",
                                           "kiln");
const RegisterKernel<op::LogSoftmax> kLogSoftmax(Backend::reference, softmax_kernel<true>, "fp32",
                                                 "kiln");
const RegisterKernel<op::SoftmaxCrossEntropyForward> kForward(Backend::reference,
                                                              cross_entropy_forward_kernel, "fp32",
                                                              "kiln");
const RegisterKernel<op::SoftmaxCrossEntropyBackward> kBackward(Backend::reference,
                                                                cross_entropy_backward_kernel,
                                                                "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
