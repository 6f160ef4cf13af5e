// count_correct on the CPU: a row counts when its first maximum sits at the label.
#include "kiln/core/cpu/backend.h"
#include "kiln/core/ops/metrics.h"

namespace kiln::cpu {

void count_correct(Index rows, Index cols, const float* logits, const std::int32_t* labels,
                   std::int32_t* correct) {
  Index hits = 0;
  for (Index r = 0; r < rows; ++r) {
    const float* row = logits + r * cols;
    Index best = 0;
    for (Index c = 1; c < cols; ++c)
      if (row[c] > row[best]) best = c;
    hits += best == labels[r];
  }
  *correct += static_cast<std::int32_t>(hits);
}

namespace {

void count_correct_kernel(op::CountCorrect& o) {
  count_correct(o.logits.size(0), o.logits.size(1), o.logits.data<float>(),
                o.labels.data<std::int32_t>(), o.correct.data<std::int32_t>());
}

const RegisterKernel<op::CountCorrect> kCountCorrect(Backend::reference, count_correct_kernel,
                                                     "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
