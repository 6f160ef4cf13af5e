// CPU softmax, log_softmax and the fused softmax cross-entropy over rows of length cols. Every
// row is shifted by its maximum before exp (so exp never overflows) and its sum of exps is taken
// in double; cross-entropy uses log p = x - logsumexp(x) rather than log(softmax), so a
// vanishing probability gives a large finite loss, never log(0).
#include <cmath>
#include <cstdint>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/error.h"
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

void softmax(const rec::Softmax& o) {
  const Index rows = o.rows, cols = o.cols;
  const float* x = o.x;
  float* y = o.y;
  const bool log = o.log;
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

void softmax_cross_entropy_forward(const rec::SoftmaxCrossEntropyForward& o) {
  const Index rows = o.rows, cols = o.cols;
  const float* logits = o.logits;
  const std::int32_t* labels = o.labels;
  const float label_smoothing = o.label_smoothing;
  float *probs = o.probs, *losses = o.losses, *counted = o.counted;
  const std::int32_t ignore_index = o.ignore_index;
  // All labels are checked before anything is written, so a bad batch leaves the outputs as
  // they were.
  for (Index r = 0; r < rows; ++r)
    KILN_CHECK(labels[r] == ignore_index || (labels[r] >= 0 && labels[r] < cols),
               "labels must be in [0, {}): found {} at sample {} of the batch", cols, labels[r], r);

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
}

void softmax_cross_entropy_backward(const rec::SoftmaxCrossEntropyBackward& o) {
  const Index rows = o.rows, cols = o.cols;
  const float* probs = o.probs;
  const std::int32_t* labels = o.labels;
  const float grad_scale = o.divisor != nullptr ? o.grad_scale / o.divisor[0] : o.grad_scale;
  const float label_smoothing = o.label_smoothing;
  float* dlogits = o.dlogits;
  const std::int32_t ignore_index = o.ignore_index;
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

const RegisterKernel<op::Softmax> kSoftmax(Backend::reference, on_record<softmax>, "fp32", "kiln");
const RegisterKernel<op::LogSoftmax> kLogSoftmax(Backend::reference, on_record<softmax>, "fp32",
                                                 "kiln");
const RegisterKernel<op::SoftmaxCrossEntropyForward> kForward(
    Backend::reference, on_record<softmax_cross_entropy_forward>, "fp32", "kiln");
const RegisterKernel<op::SoftmaxCrossEntropyBackward> kBackward(
    Backend::reference, on_record<softmax_cross_entropy_backward>, "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
