// CPU reference permute: each output row (the last axis) gathered from x through the strides
// check() computed; when the last axis stays last the row is one contiguous copy.
#include <cstring>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/ops/permute.h"

namespace kiln::cpu {

namespace {

void kernel(op::Permute& o) {
  const int r = o.rank;
  const Index cols = o.size[static_cast<std::size_t>(r - 1)];
  const Index col_stride = o.stride[static_cast<std::size_t>(r - 1)];
  const Index rows = cols > 0 ? o.y.numel() / cols : 0;
  const float* x = o.x.data<float>();
  float* y = o.y.data<float>();
  const auto size = o.size, stride = o.stride;
  for_each_index(rows, [=](Index row) {
    Index offset = 0, rest = row;
    for (int a = r - 2; a >= 0; --a) {
      const auto sa = static_cast<std::size_t>(a);
      offset += (rest % size[sa]) * stride[sa];
      rest /= size[sa];
    }
    float* out = y + row * cols;
    if (col_stride == 1) {
      std::memcpy(out, x + offset, static_cast<std::size_t>(cols) * sizeof(float));
    } else {
      for (Index c = 0; c < cols; ++c) out[c] = x[offset + c * col_stride];
    }
  });
}

const RegisterKernel<op::Permute> kPermute(Backend::reference, kernel, "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
