// CPU reference permute: each output row (the last axis) gathered from x through the strides
// check() computed; when the last axis stays last the row is one contiguous copy.
#include <cstring>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/ops/permute.h"

namespace kiln::cpu {

namespace {

void permute(const rec::Permute& record) {
  const rec::Permute o = record;  // by value into the threads' lambda, as the CUDA kernel takes it
  const int r = o.rank;
  const Index cols = o.size[r - 1];
  const Index col_stride = o.stride[r - 1];
  const Index rows = cols > 0 ? o.count / cols : 0;
  const float* x = o.x;
  float* y = o.y;
  for_each_index(rows, [=](Index row) {
    Index offset = 0, rest = row;
    for (int a = r - 2; a >= 0; --a) {
      offset += (rest % o.size[a]) * o.stride[a];
      rest /= o.size[a];
    }
    float* out = y + row * cols;
    if (col_stride == 1) {
      std::memcpy(out, x + offset, static_cast<std::size_t>(cols) * sizeof(float));
    } else {
      for (Index c = 0; c < cols; ++c) out[c] = x[offset + c * col_stride];
    }
  });
}

const RegisterKernel<op::Permute> kPermute(Backend::reference, on_record<permute>, "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
