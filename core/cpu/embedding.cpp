// CPU reference embedding. Forward copies rows (check() has checked every id: an integer in
// [0, num), else a kiln::Error naming the id and its position). Backward adds dy's rows into
// dweight in the order of the ids, split over threads by blocks of columns so that each sum has one
// owner and one order: the order the CUDA kernel (core/cuda/embedding.cu) keeps, so both give the
// same bits.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/ops/embedding.h"

namespace kiln::cpu {

namespace {

// The ids as row indices (check() has found each an integer in [0, num)).
template <typename Record> std::vector<Index> row_indices(const Record& o) {
  std::vector<Index> rows(static_cast<std::size_t>(o.count));
  if (o.ids_i32) {
    const auto* p = static_cast<const std::int32_t*>(o.ids);
    for (Index i = 0; i < o.count; ++i) rows[static_cast<std::size_t>(i)] = p[i];
  } else {
    const auto* p = static_cast<const float*>(o.ids);
    for (Index i = 0; i < o.count; ++i)
      rows[static_cast<std::size_t>(i)] = static_cast<Index>(p[i]);
  }
  return rows;
}

void forward(const rec::EmbeddingForward& o) {
  const std::vector<Index> rows = row_indices(o);
  const float* w = o.weight;
  float* y = o.y;
  const Index dim = o.dim;
  for_each_index(o.count, [&](Index i) {
    std::memcpy(y + i * dim, w + rows[static_cast<std::size_t>(i)] * dim,
                static_cast<std::size_t>(dim) * sizeof(float));
  });
}

void backward(const rec::EmbeddingBackward& o) {
  const std::vector<Index> rows = row_indices(o);
  const float* dy = o.dy;
  float* dw = o.dweight;
  const Index dim = o.dim, count = o.count;
  // By blocks of columns rather than one column at a time: a pass over the ids then reads whole
  // cache lines of dy instead of one float of each. Each sum keeps its one owner and id order.
  constexpr Index kColumns = 32;
  const Index blocks = (dim + kColumns - 1) / kColumns;
#pragma omp parallel for if (count * dim > kParallelMin) schedule(static)
  for (Index block = 0; block < blocks; ++block) {
    const Index c0 = block * kColumns, width = std::min(kColumns, dim - c0);
    for (Index i = 0; i < count; ++i) {
      float* to = dw + rows[static_cast<std::size_t>(i)] * dim + c0;
      const float* from = dy + i * dim + c0;
      for (Index c = 0; c < width; ++c) to[c] += from[c];
    }
  }
}

const RegisterKernel<op::EmbeddingForward> kForward(Backend::reference, on_record<forward>, "fp32",
                                                    "kiln");
const RegisterKernel<op::EmbeddingBackward> kBackward(Backend::reference, on_record<backward>,
                                                      "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
