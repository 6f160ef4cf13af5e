// Registers the CUDA reductions (core/cuda/reduce.cu) for reduce, argmax and sum_squares.
#include "kiln/core/ops/reduce.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::Reduce> kReduce(Backend::cuda, on_stream<reduce>, "fp32", "kiln");
const RegisterKernel<op::Argmax> kArgmax(Backend::cuda, on_stream<argmax>, "fp32", "kiln");
const RegisterKernel<op::SumSquares> kSumSquares(Backend::cuda, on_stream<sum_squares>, "fp32",
                                                 "kiln");

}  // namespace
}  // namespace kiln::cuda
