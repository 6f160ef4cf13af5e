// CPU dropout: element i is kept when the top 24 bits of Philox word x at (seed, offset + i),
// as a float in [0, 1), are >= p. The same expressions run in core/cuda/dropout.cu, so the two
// devices draw the same mask bit for bit, whatever the thread count.
#include "kiln/core/ops/dropout.h"
#include "kiln/core/cpu/backend.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/philox.h"

namespace kiln::cpu {

void dropout_forward(const rec::DropoutForward& o) {
  const Index n = o.n;
  const std::uint64_t seed = o.seed, offset = o.offset;
  const float p = o.p, scale = o.scale;
  const float* x = o.x;
  float *y = o.y, *mask = o.mask;
#pragma omp parallel for if (n > kParallelMin) schedule(static)
  for (Index i = 0; i < n; ++i) {
    const philox::Uint4 word = philox::draw(seed, offset + static_cast<std::uint64_t>(i));
    const float m = philox::to_unit(word.x) >= p ? scale : 0.0f;
    mask[i] = m;
    y[i] = x[i] * m;
  }
}

namespace {

const RegisterKernel<op::DropoutForward> kForward(Backend::reference, on_record<dropout_forward>,
                                                  "fp32", "kiln");
const RegisterKernel<op::DropoutBackward> kBackward(Backend::reference,
                                                    op::DropoutBackward::as_binary, "fp32",
                                                    "composite");

}  // namespace

}  // namespace kiln::cpu
