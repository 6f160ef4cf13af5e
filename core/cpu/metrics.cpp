// count_correct on the CPU: a row counts when its first maximum sits at the label.
#include "kiln/core/ops/metrics.h"
#include "kiln/core/cpu/backend.h"

namespace kiln::cpu {

void count_correct(const rec::CountCorrect& o) {
  const Index rows = o.rows, cols = o.cols;
  const float* logits = o.logits;
  const std::int32_t* labels = o.labels;
  std::int32_t* correct = o.correct;
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

const RegisterKernel<op::CountCorrect> kCountCorrect(Backend::reference, on_record<count_correct>,
                                                     "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
