// Registers the CUDA multi-tensor optimizer kernels (core/cuda/optimizer_ops.cu). Per-step rows
// stay on the device: the kernels read the row at the cursor and advance it there.
#include "kiln/core/cuda/optimizer_ops.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/optimizer_ops.h"

namespace kiln::cuda {
namespace {

void sgd_kernel(op::SgdStep& o) {
  const op::TensorLists& l = o.lists;
  sgd_step(l.count, l.sizes.data(), l.a.data(), l.b.data(), l.c.empty() ? nullptr : l.c.data(),
           o.config, o.first_step, o.rows, detail::prepare_cuda(o.device()));
}

void adam_kernel(op::AdamStep& o) {
  const op::TensorLists& l = o.lists;
  adam_step(l.count, l.sizes.data(), l.a.data(), l.b.data(), l.c.data(), l.d.data(), o.config,
            o.scalars, o.rows, o.decayed.empty() ? nullptr : o.decayed.data(),
            detail::prepare_cuda(o.device()));
}

void sum_squares_kernel(op::MultiSumSquares& o) {
  multi_sum_squares(o.lists.count, o.lists.sizes.data(), o.lists.a.data(), o.out.data<float>(),
                    detail::prepare_cuda(o.device()));
}

void clip_kernel(op::ClipByGlobalNorm& o) {
  clip_by_global_norm(
      o.lists.count, o.lists.sizes.data(), o.lists.a.data(), o.norm_sq.data<float>(), o.max_norm,
      o.norm != nullptr ? o.norm->data<float>() : nullptr, detail::prepare_cuda(o.device()));
}

void clamp_kernel(op::Clamp& o) {
  clamp_(o.lists.count, o.lists.sizes.data(), o.lists.a.data(), o.lo, o.hi,
         detail::prepare_cuda(o.device()));
}

const RegisterKernel<op::SgdStep> kSgd(Backend::cuda, sgd_kernel, "fp32", "kiln");
const RegisterKernel<op::AdamStep> kAdam(Backend::cuda, adam_kernel, "fp32", "kiln");
const RegisterKernel<op::MultiSumSquares> kSumSquares(Backend::cuda, sum_squares_kernel, "fp32",
                                                      "kiln");
const RegisterKernel<op::ClipByGlobalNorm> kClip(Backend::cuda, clip_kernel, "fp32", "kiln");
const RegisterKernel<op::Clamp> kClamp(Backend::cuda, clamp_kernel, "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
