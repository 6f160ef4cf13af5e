// bias_add and bias_grad over the last axis.
#include "kiln/core/cpu/kernels.h"
#include "kiln/core/cuda/kernels.h"
#include "kiln/core/dispatch.h"
#include "kiln/core/ops.h"

namespace kiln {

namespace {
// Rows of a tensor whose last axis must match the bias length.
std::int64_t rows_for_bias(const char* op, const Tensor& y, const char* y_name, const Tensor& bias) {
  KILN_CHECK(bias.rank() == 1, "{}: bias must be a vector, found {}", op, bias.shape().str());
  KILN_CHECK(y.rank() >= 1 && y.size(-1) == bias.size(0),
             "{}: the last axis of {} {} must equal the bias length {}", op, y_name,
             y.shape().str(), bias.size(0));
  return bias.size(0) == 0 ? 0 : y.numel() / bias.size(0);
}
}  // namespace

void bias_add(Tensor& y, const Tensor& bias) {
  constexpr const char* op = "bias_add";
  detail::check_operands(op, {{"y", &y}, {"bias", &bias}}, DType::f32);
  detail::check_same_device(op, {{"y", &y}, {"bias", &bias}});
  const std::int64_t rows = rows_for_bias(op, y, "y", bias), cols = bias.size(0);
  if (y.device().is_cpu()) return cpu::bias_add(rows, cols, bias.data<float>(), y.data<float>());
  KILN_ON_CUDA(op, cuda::bias_add(rows, cols, bias.data<float>(), y.data<float>(),
                                  detail::prepare_cuda(y.device())));
}

void bias_grad(const Tensor& dy, Tensor& dbias) {
  constexpr const char* op = "bias_grad";
  detail::check_operands(op, {{"dy", &dy}, {"dbias", &dbias}}, DType::f32);
  detail::check_same_device(op, {{"dy", &dy}, {"dbias", &dbias}});
  const std::int64_t rows = rows_for_bias(op, dy, "dy", dbias), cols = dbias.size(0);
  if (dy.device().is_cpu()) return cpu::bias_grad(rows, cols, dy.data<float>(), dbias.data<float>());
  KILN_ON_CUDA(op, cuda::bias_grad(rows, cols, dy.data<float>(), dbias.data<float>(),
                                   detail::prepare_cuda(dy.device())));
}

}  // namespace kiln
