// Registers the CUDA count_correct kernel (core/cuda/metrics.cu).
#include "kiln/core/cuda/metrics.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/metrics.h"

namespace kiln::cuda {
namespace {

void count_correct_kernel(op::CountCorrect& o) {
  count_correct(o.logits.size(0), o.logits.size(1), o.logits.data<float>(),
                o.labels.data<std::int32_t>(), o.correct.data<std::int32_t>(),
                detail::prepare_cuda(o.logits.device()));
}

const RegisterKernel<op::CountCorrect> kCountCorrect(Backend::cuda, count_correct_kernel, "fp32",
                                                     "kiln");

}  // namespace
}  // namespace kiln::cuda
