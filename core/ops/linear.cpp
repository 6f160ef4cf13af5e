// The Linear ops' checks and public entry points.
#include "kiln/core/ops/linear.h"

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace {

// The weight's bf16 copy: undefined, or bf16 of the weight's shape on the CPU. Returns its bits.
const std::uint16_t* bf16_copy(const char* op, const Tensor& weight, const Tensor& weight_bf16) {
  if (!weight_bf16.defined()) return nullptr;
  KILN_CHECK(weight_bf16.dtype() == DType::bf16 && weight_bf16.shape() == weight.shape() &&
                 weight_bf16.device().is_cpu() && weight.device().is_cpu(),
             "{}: weight_bf16 must be a bf16 copy of the CPU weight {}, found {}", op, weight.str(),
             weight_bf16.str());
  return static_cast<const std::uint16_t*>(weight_bf16.raw_data());
}

float* data_or_null(const Tensor& t) { return t.defined() ? t.data<float>() : nullptr; }

}  // namespace

namespace op {

void LinearForward::check() {
  detail::check_operands(kName, {{"x", &x}, {"weight", &weight}, {"y", &y}}, DType::f32);
  detail::check_same_device(kName, {{"x", &x}, {"weight", &weight}, {"y", &y}});
  KILN_CHECK(x.rank() == 2 && weight.rank() == 2 && x.size(1) == weight.size(1),
             "linear_forward: x must be (N, in) and weight (out, in), found x {} and weight {}",
             x.shape().str(), weight.shape().str());
  const std::int64_t n = x.size(0), in = x.size(1), out = weight.size(0);
  detail::check_shape(kName, {"y", &y}, Shape{n, out});
  if (bias.defined()) {
    detail::check_operands(kName, {{"bias", &bias}}, DType::f32);
    detail::check_same_device(kName, {{"x", &x}, {"bias", &bias}});
    detail::check_shape(kName, {"bias", &bias}, Shape{out});
  }
  record = {n,
            in,
            out,
            x.data<float>(),
            weight.data<float>(),
            bf16_copy(kName, weight, weight_bf16),
            data_or_null(bias),
            relu,
            y.data<float>()};
}

void LinearBackward::check() {
  detail::check_operands(
      kName, {{"dy", &dy}, {"x", &x}, {"weight", &weight}, {"dweight", &dweight}}, DType::f32);
  detail::check_same_device(kName,
                            {{"dy", &dy}, {"x", &x}, {"weight", &weight}, {"dweight", &dweight}});
  KILN_CHECK(x.rank() == 2 && weight.rank() == 2 && x.size(1) == weight.size(1),
             "linear_backward: x must be (N, in) and weight (out, in), found x {} and weight {}",
             x.shape().str(), weight.shape().str());
  const std::int64_t n = x.size(0), in = x.size(1), out = weight.size(0);
  detail::check_shape(kName, {"dy", &dy}, Shape{n, out});
  detail::check_shape(kName, {"dweight", &dweight}, weight.shape());
  if (y.defined()) {
    detail::check_operands(kName, {{"y", &y}, {"dpre", &dpre}}, DType::f32);
    detail::check_same_device(kName, {{"dy", &dy}, {"y", &y}, {"dpre", &dpre}});
    detail::check_shape(kName, {"y", &y}, Shape{n, out});
    detail::check_shape(kName, {"dpre", &dpre}, Shape{n, out});
  }
  if (dbias.defined()) {
    detail::check_operands(kName, {{"dbias", &dbias}}, DType::f32);
    detail::check_same_device(kName, {{"dy", &dy}, {"dbias", &dbias}});
    detail::check_shape(kName, {"dbias", &dbias}, Shape{out});
  }
  if (dx != nullptr) {
    detail::check_operands(kName, {{"dx", dx}}, DType::f32);
    detail::check_same_device(kName, {{"dy", &dy}, {"dx", dx}});
    detail::check_shape(kName, {"dx", dx}, Shape{n, in});
  }
  record = {n,
            in,
            out,
            dy.data<float>(),
            x.data<float>(),
            weight.data<float>(),
            bf16_copy(kName, weight, weight_bf16),
            data_or_null(y),
            dweight.data<float>(),
            data_or_null(dbias),
            dx != nullptr ? dx->data<float>() : nullptr,
            y.defined() ? dpre.data<float>() : nullptr};
}

}  // namespace op

void linear_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor& y, bool relu,
                    const Tensor& weight_bf16) {
  run(op::LinearForward{x, weight, bias, y, relu, weight_bf16});
}

void linear_backward(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& y,
                     Tensor& dweight, Tensor& dbias, Tensor* dx, Tensor& dpre,
                     const Tensor& weight_bf16) {
  run(op::LinearBackward{dy, x, weight, y, dweight, dbias, dx, dpre, weight_bf16});
}

namespace detail {
std::int64_t (*linear_forward_fallback_count)() = nullptr;
}  // namespace detail

std::int64_t linear_forward_fallbacks() {
  return detail::linear_forward_fallback_count != nullptr ? detail::linear_forward_fallback_count()
                                                          : 0;
}

}  // namespace kiln
