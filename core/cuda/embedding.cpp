// Registers the CUDA embedding kernels (core/cuda/embedding.cu).
#include "kiln/core/cuda/embedding.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/embedding.h"

namespace kiln::cuda {
namespace {

void forward_kernel(op::EmbeddingForward& o) {
  embedding_forward(o.count, o.num, o.dim, o.ids.raw_data(), o.ids.dtype() == DType::i32,
                    o.weight.data<float>(), o.y.data<float>(), detail::prepare_cuda(o.device()));
}
void backward_kernel(op::EmbeddingBackward& o) {
  embedding_backward(o.count, o.num, o.dim, o.ids.raw_data(), o.ids.dtype() == DType::i32,
                     o.dy.data<float>(), o.dweight.data<float>(), detail::prepare_cuda(o.device()));
}

const RegisterKernel<op::EmbeddingForward> kForward(Backend::cuda, forward_kernel, "fp32", "kiln");
const RegisterKernel<op::EmbeddingBackward> kBackward(Backend::cuda, backward_kernel, "fp32",
                                                      "kiln");

}  // namespace
}  // namespace kiln::cuda
