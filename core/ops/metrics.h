// count_correct: top-1 hits accumulated on the device (checks in core/ops/metrics.cpp; kernels in
// core/cpu/metrics.cpp and core/cuda/metrics.cpp).
#pragma once

#include "kiln/core/ops/metrics_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// logits: (N, C), labels: (N) int32, correct: (1) or () int32 -> correct += number of rows whose
// first maximum is at the label: exact, whatever the order of the GPU's atomic adds (a float
// count would round past 2^24). Stays on the device: no host synchronisation.
void count_correct(const Tensor& logits, const Tensor& labels, Tensor& correct);

namespace op {

struct CountCorrect {
  static constexpr const char* kName = "count_correct";
  const Tensor& logits;
  const Tensor& labels;
  Tensor& correct;
  rec::CountCorrect record{};  // filled by check()
  void check();
  Device device() const { return logits.device(); }
};

}  // namespace op
}  // namespace kiln
