// Registers the CUDA embedding launches (core/cuda/embedding.cu) for the embedding ops.
#include "kiln/core/ops/embedding.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::EmbeddingForward> kForward(Backend::cuda, on_stream<embedding_forward>,
                                                    "fp32", "kiln");
const RegisterKernel<op::EmbeddingBackward> kBackward(Backend::cuda, on_stream<embedding_backward>,
                                                      "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
