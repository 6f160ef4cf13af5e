// The embedding ops' checks and public entry points.
#include "kiln/core/ops/embedding.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"

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

}  // namespace

namespace op {

void EmbeddingForward::check() {
  check_embedding(kName, ids, weight, "weight", y, "y");
  count = ids.numel(), num = weight.size(0), dim = weight.size(1);
}

void EmbeddingBackward::check() {
  check_embedding(kName, ids, dweight, "dweight", dy, "dy");
  count = ids.numel(), num = dweight.size(0), dim = dweight.size(1);
}

}  // namespace op

void embedding_forward(const Tensor& ids, const Tensor& weight, Tensor& y) {
  run(op::EmbeddingForward{ids, weight, y});
}

void embedding_backward(const Tensor& ids, const Tensor& dy, Tensor& dweight) {
  run(op::EmbeddingBackward{ids, dy, dweight});
}

}  // namespace kiln
