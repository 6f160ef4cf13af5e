// Registers the CUDA elementwise kernels (core/cuda/elementwise.cu) for binary, scale, axpy, fill.
#include "kiln/core/cuda/elementwise.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/elementwise.h"

namespace kiln::cuda {
namespace {

void binary_kernel(op::Binary& o) {
  binary(o.f, o.a.numel(), o.a.data<float>(), o.b.data<float>(), o.out.data<float>(),
         detail::prepare_cuda(o.a.device()));
}
void scale_kernel(op::Scale& o) {
  scale(o.x.numel(), o.alpha, o.x.data<float>(), detail::prepare_cuda(o.x.device()));
}
void axpy_kernel(op::Axpy& o) {
  axpy(o.x.numel(), o.alpha, o.x.data<float>(), o.y.data<float>(),
       detail::prepare_cuda(o.x.device()));
}
void fill_kernel(op::Fill& o) {
  const cudaStream_t stream = detail::prepare_cuda(o.x.device());
  if (o.x.dtype() == DType::i32)
    return fill(o.x.numel(), static_cast<std::int32_t>(o.value), o.x.data<std::int32_t>(), stream);
  fill(o.x.numel(), o.value, o.x.data<float>(), stream);
}

const RegisterKernel<op::Binary> kBinary(Backend::cuda, binary_kernel, "fp32", "kiln");
const RegisterKernel<op::Scale> kScale(Backend::cuda, scale_kernel, "fp32", "kiln");
const RegisterKernel<op::Axpy> kAxpy(Backend::cuda, axpy_kernel, "fp32", "kiln");
const RegisterKernel<op::Fill> kFill(Backend::cuda, fill_kernel, "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
