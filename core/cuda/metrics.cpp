// Registers the CUDA metrics launches (core/cuda/metrics.cu) for the metrics ops.
#include "kiln/core/ops/metrics.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::CountCorrect> kCountCorrect(Backend::cuda, on_stream<count_correct>,
                                                     "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
