// The batch_norm ops' checks and public entry points.
#include "kiln/core/ops/batch_norm.h"

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace {

// x viewed as (n, c, l).
struct Ncl {
  std::int64_t n = 0, c = 0, l = 0;
};

// x is (N, C) or (N, C, L); each per-channel tensor is (C), on x's device.
Ncl check_batch_norm(const char* op, const Tensor& x,
                     std::initializer_list<detail::Operand> per_channel) {
  detail::check_operands(op, {{"x", &x}}, DType::f32);
  detail::check_operands(op, per_channel, DType::f32);
  KILN_CHECK(x.rank() == 2 || x.rank() == 3,
             "{}: x must be (batch, channels) or (batch, channels, length), found {}", op,
             x.shape().str());
  const Ncl s{x.size(0), x.size(1), x.rank() == 3 ? x.size(2) : 1};
  for (const auto& [name, t] : per_channel) {
    detail::check_same_device(op, {{"x", &x}, {name, t}});
    detail::check_shape(op, {name, t}, Shape{s.c});
  }
  return s;
}

}  // namespace

namespace op {

void BatchNormForwardTrain::check() {
  const Ncl s = check_batch_norm(kName, x,
                                 {{"gamma", &gamma},
                                  {"beta", &beta},
                                  {"running_mean", &running_mean},
                                  {"running_var", &running_var},
                                  {"save_mean", &save_mean},
                                  {"save_invstd", &save_invstd}});
  detail::check_alike(kName, {{"x", &x}, {"y", &y}}, DType::f32);
  // As PyTorch: one value per channel has no variance to normalise by.
  KILN_CHECK(s.n * s.l > 1,
             "{}: training needs more than one value per channel, found x {}; use a batch of 2 or "
             "more, or eval()",
             kName, x.shape().str());
  KILN_CHECK(momentum >= 0.0f && momentum <= 1.0f && eps > 0.0f,
             "{}: momentum must be in [0, 1] and eps > 0, found momentum {} and eps {}", kName,
             momentum, eps);
  record = {s.n,
            s.c,
            s.l,
            x.data<float>(),
            gamma.data<float>(),
            beta.data<float>(),
            momentum,
            eps,
            running_mean.data<float>(),
            running_var.data<float>(),
            y.data<float>(),
            save_mean.data<float>(),
            save_invstd.data<float>()};
}

void BatchNormForwardEval::check() {
  const Ncl s = check_batch_norm(kName, x,
                                 {{"gamma", &gamma},
                                  {"beta", &beta},
                                  {"running_mean", &running_mean},
                                  {"running_var", &running_var}});
  detail::check_alike(kName, {{"x", &x}, {"y", &y}}, DType::f32);
  KILN_CHECK(eps > 0.0f, "{}: eps must be > 0, found {}", kName, eps);
  record = {s.n,
            s.c,
            s.l,
            x.data<float>(),
            gamma.data<float>(),
            beta.data<float>(),
            running_mean.data<float>(),
            running_var.data<float>(),
            eps,
            y.data<float>()};
}

void BatchNormBackward::check() {
  const Ncl s = check_batch_norm(kName, x,
                                 {{"gamma", &gamma},
                                  {"save_mean", &save_mean},
                                  {"save_invstd", &save_invstd},
                                  {"dgamma", &dgamma},
                                  {"dbeta", &dbeta}});
  detail::check_alike(kName, {{"x", &x}, {"dy", &dy}, {"dx", &dx}}, DType::f32);
  record = {s.n,
            s.c,
            s.l,
            x.data<float>(),
            dy.data<float>(),
            gamma.data<float>(),
            save_mean.data<float>(),
            save_invstd.data<float>(),
            dx.data<float>(),
            dgamma.data<float>(),
            dbeta.data<float>()};
}

}  // namespace op

void batch_norm_forward_train(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                              Tensor& running_mean, Tensor& running_var, Tensor& y,
                              Tensor& save_mean, Tensor& save_invstd, float momentum, float eps) {
  run(op::BatchNormForwardTrain{x, gamma, beta, running_mean, running_var, y, save_mean,
                                save_invstd, momentum, eps});
}

void batch_norm_forward_eval(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                             const Tensor& running_mean, const Tensor& running_var, Tensor& y,
                             float eps) {
  run(op::BatchNormForwardEval{x, gamma, beta, running_mean, running_var, y, eps});
}

void batch_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                         const Tensor& save_mean, const Tensor& save_invstd, Tensor& dx,
                         Tensor& dgamma, Tensor& dbeta) {
  run(op::BatchNormBackward{dy, x, gamma, save_mean, save_invstd, dx, dgamma, dbeta});
}

}  // namespace kiln
