// Registers the CUDA convolutions (core/cuda/conv2d.cu, cuDNN in fp32 at every precision). cuDNN's
// legacy descriptors take ints, so each launch is preceded by the size check, which throws (a
// kiln::Error, which the .cu files cannot build) where they would not fit.
#include "kiln/core/ops/conv2d.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

template <auto Launch, typename Op> void checked(Op& o) {
  detail::check_fits_cudnn(o.kName, o.record.g);
  on_stream<Launch>(o);
}

const RegisterKernel<op::Conv2dForward> kForward(Backend::cuda, checked<conv2d_forward>, "fp32",
                                                 "cuDNN");
const RegisterKernel<op::Conv2dBackwardData> kBackwardData(Backend::cuda,
                                                           checked<conv2d_backward_data>, "fp32",
                                                           "cuDNN");
const RegisterKernel<op::Conv2dBackwardFilter> kBackwardFilter(Backend::cuda,
                                                               checked<conv2d_backward_filter>,
                                                               "fp32", "cuDNN");

}  // namespace
}  // namespace kiln::cuda
