#include "kiln/layers/mse_loss.h"

#include "kiln/core/ops.h"

namespace kiln {

const Tensor& MSELoss::compute(const Tensor& prediction, const Tensor& target) {
  KILN_CHECK(prediction.defined() && prediction.numel() > 0,
             "MSELoss: the prediction must be a non-empty tensor");
  KILN_CHECK(target.shape() == prediction.shape(),
             "MSELoss: the prediction is {} but the target {}: the model's output must have one "
             "value per target value",
             prediction.shape().str(), target.shape().str());
  Tensor& diff = reuse_buffer(diff_, prediction.shape(), DType::f32, prediction.device());
  binary(BinaryOp::sub, prediction, target, diff);  // checks shapes and devices
  Tensor& loss = reuse_buffer(loss_, {1}, DType::f32, prediction.device());
  sum_squares(diff, loss);
  scale(loss, 1.0f / static_cast<float>(diff.numel()));
  scalar_ = loss.view(Shape{});
  return scalar_;
}

const Tensor& MSELoss::backward(float scale_by) {
  KILN_CHECK(diff_.defined(), "MSELoss: backward called before forward");
  Tensor& d = reuse_buffer(dprediction_, diff_.shape(), DType::f32, diff_.device());
  // Queued, not copy(): a synchronous copy would wait for the GPU at every step.
  copy_async(diff_, d, Stream::current(d.device()));
  scale(d, scale_by * 2.0f / static_cast<float>(diff_.numel()));
  return d;
}

}  // namespace kiln
