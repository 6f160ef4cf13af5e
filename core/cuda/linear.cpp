// Registers the CUDA Linear kernels: the forward is core/cuda/linear.cu (cuBLASLt with a fused
// epilogue); the backward is a composite of other ops, the same steps as the CPU reference.
#include "kiln/core/ops/linear.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"
#include "kiln/core/ops/activation.h"
#include "kiln/core/ops/bias.h"
#include "kiln/core/ops/gemm.h"

namespace kiln::cuda {
namespace {

// Each step its own op (kernel or cuBLAS call), as the CPU reference does them.
void backward_kernel(op::LinearBackward& o) {
  const Tensor* g = &o.dy;
  if (o.y.defined()) {
    activation_backward(Activation::relu, o.y, o.y, o.dy, o.dpre);
    g = &o.dpre;
  }
  gemm(*g, true, o.x, false, o.dweight, 1.0f, 1.0f);
  if (o.dbias.defined()) bias_grad(*g, o.dbias);
  if (o.dx != nullptr) gemm(*g, false, o.weight, false, *o.dx);
}

struct Registration {
  Registration() { detail::linear_forward_fallback_count = linear_forward_fallbacks; }
};

const RegisterKernel<op::LinearForward> kForward(Backend::cuda, on_stream<linear_forward>,
                                                 "fp32 tf32 bf16", "cuBLASLt");
const RegisterKernel<op::LinearBackward> kBackward(Backend::cuda, backward_kernel, "fp32 tf32 bf16",
                                                   "composite");
const Registration kFallbackCount;

}  // namespace
}  // namespace kiln::cuda
