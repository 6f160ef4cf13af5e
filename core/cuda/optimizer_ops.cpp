// Registers the CUDA multi-tensor optimizer launches (core/cuda/optimizer_ops.cu). Per-step rows
// stay on the device: the kernels read the row at the cursor and advance it there.
#include "kiln/core/ops/optimizer_ops.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::SgdStep> kSgd(Backend::cuda, on_stream<sgd_step>, "fp32", "kiln");
const RegisterKernel<op::AdamStep> kAdam(Backend::cuda, on_stream<adam_step>, "fp32", "kiln");
const RegisterKernel<op::MultiSumSquares> kSumSquares(Backend::cuda, on_stream<multi_sum_squares>,
                                                      "fp32", "kiln");
const RegisterKernel<op::ClipByGlobalNorm> kClip(Backend::cuda, on_stream<clip_by_global_norm>,
                                                 "fp32", "kiln");
const RegisterKernel<op::Clamp> kClamp(Backend::cuda, on_stream<clamp_>, "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
