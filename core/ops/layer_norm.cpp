// The layer_norm ops' checks and public entry points.
#include "kiln/core/ops/layer_norm.h"

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace {

// x is (..., C) with C > 0; each per-feature tensor is (C), each per-row one (rows), all
// float32 on x's device. Returns (rows, C).
std::pair<std::int64_t, std::int64_t> check_layer_norm(
    const char* op, const Tensor& x, std::initializer_list<detail::Operand> per_feature,
    std::initializer_list<detail::Operand> per_row) {
  detail::check_operands(op, {{"x", &x}}, DType::f32);
  KILN_CHECK(x.rank() >= 1 && x.size(-1) > 0,
             "{}: x must be (..., features) with at least one feature, found {}", op,
             x.shape().str());
  const std::int64_t cols = x.size(-1), rows = x.numel() / cols;
  const auto check_each = [&](std::initializer_list<detail::Operand> list, std::int64_t size) {
    detail::check_operands(op, list, DType::f32);
    for (const auto& [name, t] : list) {
      detail::check_same_device(op, {{"x", &x}, {name, t}});
      detail::check_shape(op, {name, t}, Shape{size});
    }
  };
  check_each(per_feature, cols);
  check_each(per_row, rows);
  return {rows, cols};
}

}  // namespace

namespace op {

void LayerNormForward::check() {
  const auto [rows, cols] =
      check_layer_norm(kName, x, {{"gamma", &gamma}, {"beta", &beta}},
                       {{"save_mean", &save_mean}, {"save_invstd", &save_invstd}});
  detail::check_alike(kName, {{"x", &x}, {"y", &y}}, DType::f32);
  KILN_CHECK(eps > 0.0f, "{}: eps must be > 0, found {}", kName, eps);
  record = {rows,
            cols,
            x.data<float>(),
            gamma.data<float>(),
            beta.data<float>(),
            eps,
            y.data<float>(),
            save_mean.data<float>(),
            save_invstd.data<float>()};
}

void LayerNormBackward::check() {
  const auto [rows, cols] =
      check_layer_norm(kName, x, {{"gamma", &gamma}, {"dgamma", &dgamma}, {"dbeta", &dbeta}},
                       {{"save_mean", &save_mean}, {"save_invstd", &save_invstd}});
  detail::check_alike(kName, {{"x", &x}, {"dy", &dy}, {"dx", &dx}}, DType::f32);
  record = {rows,
            cols,
            dy.data<float>(),
            x.data<float>(),
            gamma.data<float>(),
            save_mean.data<float>(),
            save_invstd.data<float>(),
            dx.data<float>(),
            dgamma.data<float>(),
            dbeta.data<float>()};
}

}  // namespace op

void layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, Tensor& y,
                        Tensor& save_mean, Tensor& save_invstd, float eps) {
  run(op::LayerNormForward{x, gamma, beta, y, save_mean, save_invstd, eps});
}

void layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                         const Tensor& save_mean, const Tensor& save_invstd, Tensor& dx,
                         Tensor& dgamma, Tensor& dbeta) {
  run(op::LayerNormBackward{dy, x, gamma, save_mean, save_invstd, dx, dgamma, dbeta});
}

}  // namespace kiln
