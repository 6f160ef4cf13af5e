// CPU reference embedding. Forward copies rows after checking every id (an integer in [0, num),
// else a kiln::Error naming the id and its position). Backward adds dy's rows into dweight in the
// order of the ids, split over threads by blocks of columns so that each sum has one owner and one
// order: the order the CUDA kernel (core/cuda/embedding.cu) keeps, so both give the same bits.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <fmt/ranges.h>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/error.h"
#include "kiln/core/ops/embedding.h"

namespace kiln::cpu {

namespace {

// "(2, 5)": flat index i of a tensor of `shape` as coordinates.
std::string coordinates(const Shape& shape, Index i) {
  std::vector<Index> at(static_cast<std::size_t>(shape.rank()));
  for (int a = shape.rank() - 1; a >= 0; --a) {
    at[static_cast<std::size_t>(a)] = shape[a] > 0 ? i % shape[a] : 0;
    i = shape[a] > 0 ? i / shape[a] : 0;
  }
  return fmt::format("({})", fmt::join(at, ", "));
}

// The ids as row indices, each checked.
std::vector<Index> row_indices(const char* op, const Tensor& ids, Index num) {
  const Index count = ids.numel();
  std::vector<Index> rows(static_cast<std::size_t>(count));
  if (ids.dtype() == DType::i32) {
    const std::int32_t* p = ids.data<std::int32_t>();
    for (Index i = 0; i < count; ++i) {
      KILN_CHECK(p[i] >= 0 && p[i] < num,
                 "{}: ids must be in [0, {}), found {} at position {} of ids {}; the vocabulary "
                 "(the embedding's num) must cover every id",
                 op, num, p[i], coordinates(ids.shape(), i), ids.shape().str());
      rows[static_cast<std::size_t>(i)] = p[i];
    }
    return rows;
  }
  const float* p = ids.data<float>();
  for (Index i = 0; i < count; ++i) {
    const float v = p[i];
    KILN_CHECK(std::isfinite(v) && v == std::floor(v),
               "{}: float32 ids must hold integers, found {} at position {} of ids {}", op, v,
               coordinates(ids.shape(), i), ids.shape().str());
    KILN_CHECK(v >= 0.0f && v < static_cast<float>(num),
               "{}: ids must be in [0, {}), found {} at position {} of ids {}; the vocabulary "
               "(the embedding's num) must cover every id",
               op, num, v, coordinates(ids.shape(), i), ids.shape().str());
    rows[static_cast<std::size_t>(i)] = static_cast<Index>(v);
  }
  return rows;
}

void forward_kernel(op::EmbeddingForward& o) {
  const std::vector<Index> rows = row_indices(o.kName, o.ids, o.num);
  const float* w = o.weight.data<float>();
  float* y = o.y.data<float>();
  const Index dim = o.dim;
  for_each_index(o.count, [&](Index i) {
    std::memcpy(y + i * dim, w + rows[static_cast<std::size_t>(i)] * dim,
                static_cast<std::size_t>(dim) * sizeof(float));
  });
}

void backward_kernel(op::EmbeddingBackward& o) {
  const std::vector<Index> rows = row_indices(o.kName, o.ids, o.num);
  const float* dy = o.dy.data<float>();
  float* dw = o.dweight.data<float>();
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

const RegisterKernel<op::EmbeddingForward> kForward(Backend::reference, forward_kernel, "fp32",
                                                    "kiln");
const RegisterKernel<op::EmbeddingBackward> kBackward(Backend::reference, backward_kernel, "fp32",
                                                      "kiln");

}  // namespace

}  // namespace kiln::cpu
