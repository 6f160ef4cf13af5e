// count_correct: top-1 hits accumulated on the device.
#include "kiln/core/cpu/kernels.h"
#include "kiln/core/cuda/kernels.h"
#include "kiln/core/dispatch.h"
#include "kiln/core/ops.h"

namespace kiln {

void count_correct(const Tensor& logits, const Tensor& labels, Tensor& correct) {
  constexpr const char* op = "count_correct";
  detail::check_operands(op, {{"logits", &logits}}, DType::f32);
  detail::check_operands(op, {{"labels", &labels}, {"correct", &correct}}, DType::i32);
  detail::check_same_device(op, {{"logits", &logits}, {"labels", &labels}, {"correct", &correct}});
  KILN_CHECK(logits.rank() == 2 && labels.rank() == 1 && labels.size(0) == logits.size(0),
             "{}: logits must be (batch, classes) and labels (batch), found {} and {}", op,
             logits.shape().str(), labels.shape().str());
  KILN_CHECK(correct.numel() == 1, "{}: correct must hold one value, found {}", op, correct.shape().str());
  const std::int64_t rows = logits.size(0), cols = logits.size(1);
  if (logits.device().is_cpu())
    return cpu::count_correct(rows, cols, logits.data<float>(), labels.data<std::int32_t>(),
                              correct.data<std::int32_t>());
  KILN_ON_CUDA(
      op, cuda::count_correct(rows, cols, logits.data<float>(), labels.data<std::int32_t>(),
                              correct.data<std::int32_t>(), detail::prepare_cuda(logits.device())));
}

}  // namespace kiln
