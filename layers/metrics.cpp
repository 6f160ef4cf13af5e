#include "kiln/layers/metrics.h"

#include <cmath>

#include "kiln/core/ops.h"

namespace kiln {

RunningMetrics::RunningMetrics(Device device)
    : loss_sum_(Tensor::zeros(Shape{}, DType::f32, device)),
      correct_(Tensor::zeros(Shape{}, DType::i32, device)) {}

void RunningMetrics::update(const Tensor& logits, const Tensor& labels, const Tensor& mean_loss) {
  accumulate(logits, labels, mean_loss);
  count(logits.size(0));
}

void RunningMetrics::accumulate(const Tensor& logits, const Tensor& labels,
                                const Tensor& mean_loss) {
  KILN_CHECK(mean_loss.defined() && mean_loss.numel() == 1,
             "RunningMetrics: the loss must be a scalar tensor, found {}",
             mean_loss.defined() ? mean_loss.str() : std::string("an undefined tensor"));
  if (labels.dtype() == DType::f32 || labels.rank() > 1)  // regression, or a sequence's labels
    no_accuracy_ = true;
  else
    count_correct(logits, labels, correct_);
  axpy(static_cast<float>(logits.size(0)), mean_loss.view(Shape{}), loss_sum_);
}

RunningMetrics::Values RunningMetrics::read() const {
  Values v;
  v.samples = samples_;
  if (samples_ == 0) return v;
  v.mean_loss = loss_sum_.item() / static_cast<double>(samples_);
  v.accuracy = no_accuracy_ ? std::nan("")
                            : static_cast<double>(correct_.to_vector<std::int32_t>()[0]) /
                                  static_cast<double>(samples_);
  return v;
}

void RunningMetrics::reset() {
  fill(loss_sum_, 0.0f);
  fill(correct_, 0.0f);
  samples_ = 0;
}

}  // namespace kiln
