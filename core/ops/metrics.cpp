// count_correct's checks and public entry point.
#include "kiln/core/ops/metrics.h"

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

void op::CountCorrect::check() {
  detail::check_operands(kName, {{"logits", &logits}}, DType::f32);
  detail::check_operands(kName, {{"labels", &labels}, {"correct", &correct}}, DType::i32);
  detail::check_same_device(kName,
                            {{"logits", &logits}, {"labels", &labels}, {"correct", &correct}});
  KILN_CHECK(logits.rank() == 2 && labels.rank() == 1 && labels.size(0) == logits.size(0),
             "{}: logits must be (batch, classes) and labels (batch), found {} and {}", kName,
             logits.shape().str(), labels.shape().str());
  KILN_CHECK(correct.numel() == 1, "{}: correct must hold one value, found {}", kName,
             correct.shape().str());
  record = {logits.size(0), logits.size(1), logits.data<float>(), labels.data<std::int32_t>(),
            correct.data<std::int32_t>()};
}

void count_correct(const Tensor& logits, const Tensor& labels, Tensor& correct) {
  run(op::CountCorrect{logits, labels, correct});
}

}  // namespace kiln
