// The embedding ops' checks and public entry points.
#include "kiln/core/ops/embedding.h"

#include <cmath>
#include <vector>

#include <fmt/ranges.h>

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace {

// ids: (...) f32 or i32; table: (num, dim) f32; rows: (..., dim) f32; all on one device.
void check_embedding(const char* op, const Tensor& ids, const Tensor& table, const char* table_name,
                     const Tensor& rows, const char* rows_name) {
  KILN_CHECK(ids.defined() && (ids.dtype() == DType::f32 || ids.dtype() == DType::i32),
             "{}: ids must be int32, or float32 holding integers, found {}", op,
             ids.defined() ? ids.str() : std::string("an undefined tensor"));
  detail::check_operands(op, {{table_name, &table}, {rows_name, &rows}}, DType::f32);
  detail::check_same_device(op, {{table_name, &table}, {"ids", &ids}, {rows_name, &rows}});
  KILN_CHECK(table.rank() == 2 && table.size(0) > 0,
             "{}: {} must be (num, dim) with num > 0, found {}", op, table_name,
             table.shape().str());
  std::vector<std::int64_t> dims = ids.shape().dims();
  dims.push_back(table.size(1));
  detail::check_shape(op, {rows_name, &rows}, Shape(dims));
}

// "(2, 5)": flat index i of a tensor of `shape` as coordinates.
std::string coordinates(const Shape& shape, std::int64_t i) {
  std::vector<std::int64_t> at(static_cast<std::size_t>(shape.rank()));
  for (int a = shape.rank() - 1; a >= 0; --a) {
    at[static_cast<std::size_t>(a)] = shape[a] > 0 ? i % shape[a] : 0;
    i = shape[a] > 0 ? i / shape[a] : 0;
  }
  return fmt::format("({})", fmt::join(at, ", "));
}

// Every id of CPU ids an integer in [0, num), else a kiln::Error naming it and its position.
// (A GPU kernel cannot throw: there a bad id's row of y is NaN.)
void check_ids(const char* op, const Tensor& ids, std::int64_t num) {
  if (!ids.device().is_cpu()) return;
  const std::int64_t count = ids.numel();
  if (ids.dtype() == DType::i32) {
    const std::int32_t* p = ids.data<std::int32_t>();
    for (std::int64_t i = 0; i < count; ++i)
      KILN_CHECK(p[i] >= 0 && p[i] < num,
                 "{}: ids must be in [0, {}), found {} at position {} of ids {}; the vocabulary "
                 "(the embedding's num) must cover every id",
                 op, num, p[i], coordinates(ids.shape(), i), ids.shape().str());
    return;
  }
  const float* p = ids.data<float>();
  for (std::int64_t i = 0; i < count; ++i) {
    const float v = p[i];
    KILN_CHECK(std::isfinite(v) && v == std::floor(v),
               "{}: float32 ids must hold integers, found {} at position {} of ids {}", op, v,
               coordinates(ids.shape(), i), ids.shape().str());
    KILN_CHECK(v >= 0.0f && v < static_cast<float>(num),
               "{}: ids must be in [0, {}), found {} at position {} of ids {}; the vocabulary "
               "(the embedding's num) must cover every id",
               op, num, v, coordinates(ids.shape(), i), ids.shape().str());
  }
}

}  // namespace

namespace op {

void EmbeddingForward::check() {
  check_embedding(kName, ids, weight, "weight", y, "y");
  check_ids(kName, ids, weight.size(0));
  record = {ids.numel(),
            weight.size(0),
            weight.size(1),
            ids.raw_data(),
            ids.dtype() == DType::i32,
            weight.data<float>(),
            y.data<float>()};
}

void EmbeddingBackward::check() {
  check_embedding(kName, ids, dweight, "dweight", dy, "dy");
  check_ids(kName, ids, dweight.size(0));
  record = {ids.numel(),          dweight.size(0),           dweight.size(1),
            ids.raw_data(),       ids.dtype() == DType::i32, dy.data<float>(),
            dweight.data<float>()};
}

}  // namespace op

void embedding_forward(const Tensor& ids, const Tensor& weight, Tensor& y) {
  run(op::EmbeddingForward{ids, weight, y});
}

void embedding_backward(const Tensor& ids, const Tensor& dy, Tensor& dweight) {
  run(op::EmbeddingBackward{ids, dy, dweight});
}

}  // namespace kiln
