// Registers oneDNN's Linear forward and backward (matmul.cpp). oneDNN refuses empty matrices;
// those (nothing to multiply) take the reference kernel.
#include "kiln/core/ops/linear.h"
#include "kiln/core/cpu/onednn/onednn.h"
#include "kiln/core/op_table.h"
#include "kiln/core/precision.h"

namespace kiln::cpu::onednn {
namespace {

template <typename Op> bool supports(const Op& o) {
  return o.record.n > 0 && o.record.in > 0 && o.record.out > 0;
}

// At the process's matmul precision.
void forward(const rec::LinearForward& o) { linear_forward(o, bf16_products()); }
void backward(const rec::LinearBackward& o) { linear_backward(o, bf16_products()); }

const RegisterKernel<op::LinearForward> kForward(Backend::onednn, on_record<forward>, "fp32 bf16",
                                                 "oneDNN", supports<op::LinearForward>);
const RegisterKernel<op::LinearBackward> kBackward(Backend::onednn, on_record<backward>,
                                                   "fp32 bf16", "oneDNN",
                                                   supports<op::LinearBackward>);

}  // namespace
}  // namespace kiln::cpu::onednn
