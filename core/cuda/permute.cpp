// Registers the CUDA permute kernel (core/cuda/permute.cu).
#include "kiln/core/cuda/permute.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/permute.h"

namespace kiln::cuda {
namespace {

void kernel(op::Permute& o) {
  PermuteGeometry g{o.rank, {}, {}};
  for (int a = 0; a < o.rank; ++a) {
    g.size[a] = o.size[static_cast<std::size_t>(a)];
    g.stride[a] = o.stride[static_cast<std::size_t>(a)];
  }
  permute(g, o.y.numel(), o.x.data<float>(), o.y.data<float>(), detail::prepare_cuda(o.device()));
}

const RegisterKernel<op::Permute> kPermute(Backend::cuda, kernel, "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
