// Registers the CUDA causal attention: cuDNN's fused kernel under bf16 products where it takes the
// operands (core/cuda/cudnn_attention.h), kiln's fp32 kernel (core/cuda/causal_attention.cu)
// everywhere else.
#include "kiln/core/ops/causal_attention.h"
#include "kiln/core/cuda/cudnn_attention.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"
#include "kiln/core/precision.h"

namespace kiln::cuda {
namespace {

void forward(op::CausalAttentionForward& o) {
  cudaStream_t stream = detail::prepare_cuda(o.device());
  if (!(bf16_products() && cudnn_causal_attention_forward(o.record, stream)))
    causal_attention_forward(o.record, stream);
}

void backward(op::CausalAttentionBackward& o) {
  cudaStream_t stream = detail::prepare_cuda(o.device());
  if (!(bf16_products() && cudnn_causal_attention_backward(o.record, stream)))
    causal_attention_backward(o.record, stream);
}

const RegisterKernel<op::CausalAttentionForward> kForward(Backend::cuda, forward, "fp32 bf16",
                                                          "cuDNN (bf16), kiln (fp32)");
const RegisterKernel<op::CausalAttentionBackward> kBackward(Backend::cuda, backward, "fp32 bf16",
                                                            "cuDNN (bf16), kiln (fp32)");

}  // namespace
}  // namespace kiln::cuda
