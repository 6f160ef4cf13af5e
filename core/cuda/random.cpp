// Registers the CUDA random fills (core/cuda/random.cu).
#include "kiln/core/cuda/random.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/random.h"

namespace kiln::cuda {
namespace {

void uniform_kernel(op::Uniform& o) {
  uniform(o.x.numel(), o.gen.seed(), o.offset, o.low, o.high, o.x.data<float>(),
          detail::prepare_cuda(o.x.device()));
}
void normal_kernel(op::Normal& o) {
  normal(o.x.numel(), o.gen.seed(), o.offset, o.mean, o.stddev, o.x.data<float>(),
         detail::prepare_cuda(o.x.device()));
}

const RegisterKernel<op::Uniform> kUniform(Backend::cuda, uniform_kernel, "fp32", "kiln");
const RegisterKernel<op::Normal> kNormal(Backend::cuda, normal_kernel, "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
