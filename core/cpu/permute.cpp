// CPU reference permute: each output row (the last axis) gathered from x through the strides
// check() computed; when the last axis stays last the row is one contiguous copy. Rows go in
// chunks, each finding its first row's offset in x once and stepping the coordinates of the
// rows after it like an odometer (a division per axis and row cost more than the copies).
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
  for_each_chunk(rows, [=](Index begin, Index count) {
    Index at[rec::kMaxPermuteRank] = {};  // the row's coordinates over axes 0 .. r - 2
    Index offset = 0, rest = begin;
    for (int a = r - 2; a >= 0; --a) {
      at[a] = rest % o.size[a];
      offset += at[a] * o.stride[a];
      rest /= o.size[a];
    }
    for (Index row = begin; row < begin + count; ++row) {
      float* out = y + row * cols;
      if (col_stride == 1) {
        std::memcpy(out, x + offset, static_cast<std::size_t>(cols) * sizeof(float));
      } else {
        for (Index c = 0; c < cols; ++c) out[c] = x[offset + c * col_stride];
      }
      for (int a = r - 2; a >= 0; --a) {  // the next row: the last axis that does not wrap
        offset += o.stride[a];
        if (++at[a] < o.size[a]) break;
        offset -= at[a] * o.stride[a];
        at[a] = 0;
      }
    }
  });
}

const RegisterKernel<op::Permute> kPermute(Backend::reference, on_record<permute>, "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
