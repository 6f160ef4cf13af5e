// Registers the CUDA reductions (core/cuda/reduce.cu).
#include "kiln/core/cuda/reduce.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/reduce.h"

namespace kiln::cuda {
namespace {

void reduce_kernel(op::Reduce& o) {
  reduce(o.f, o.split.outer, o.split.n, o.split.inner, o.x.data<float>(), o.out.data<float>(),
         detail::prepare_cuda(o.x.device()));
}
void argmax_kernel(op::Argmax& o) {
  argmax(o.split.outer, o.split.n, o.split.inner, o.x.data<float>(), o.out.data<std::int32_t>(),
         detail::prepare_cuda(o.x.device()));
}
void sum_squares_kernel(op::SumSquares& o) {
  sum_squares(o.x.numel(), o.x.data<float>(), o.out.data<float>(),
              detail::prepare_cuda(o.x.device()));
}

const RegisterKernel<op::Reduce> kReduce(Backend::cuda, reduce_kernel, "fp32", "kiln");
const RegisterKernel<op::Argmax> kArgmax(Backend::cuda, argmax_kernel, "fp32", "kiln");
const RegisterKernel<op::SumSquares> kSumSquares(Backend::cuda, sum_squares_kernel, "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
