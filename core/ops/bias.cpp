// The bias ops' checks and public entry points.
#include "kiln/core/ops/bias.h"

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace {
// Rows of a tensor whose last axis must match the bias length.
std::int64_t rows_for_bias(const char* op, const Tensor& y, const char* y_name,
                           const Tensor& bias) {
  KILN_CHECK(bias.rank() == 1, "{}: bias must be a vector, found {}", op, bias.shape().str());
  KILN_CHECK(y.rank() >= 1 && y.size(-1) == bias.size(0),
             "{}: the last axis of {} {} must equal the bias length {}", op, y_name,
             y.shape().str(), bias.size(0));
  return bias.size(0) == 0 ? 0 : y.numel() / bias.size(0);
}
}  // namespace

namespace op {

void BiasAdd::check() {
  detail::check_operands(kName, {{"y", &y}, {"bias", &bias}}, DType::f32);
  detail::check_same_device(kName, {{"y", &y}, {"bias", &bias}});
  record = {rows_for_bias(kName, y, "y", bias), bias.size(0), bias.data<float>(), y.data<float>()};
}

void BiasGrad::check() {
  detail::check_operands(kName, {{"dy", &dy}, {"dbias", &dbias}}, DType::f32);
  detail::check_same_device(kName, {{"dy", &dy}, {"dbias", &dbias}});
  record = {rows_for_bias(kName, dy, "dy", dbias), dbias.size(0), dy.data<float>(),
            dbias.data<float>()};
}

}  // namespace op

void bias_add(Tensor& y, const Tensor& bias) { run(op::BiasAdd{y, bias}); }
void bias_grad(const Tensor& dy, Tensor& dbias) { run(op::BiasGrad{dy, dbias}); }

}  // namespace kiln
