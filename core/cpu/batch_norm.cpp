// CPU batch normalisation over x viewed as (n, c, l): channel ch holds x[i, ch, j] for all i, j.
// One OpenMP iteration per channel; sums in double (in SIMD lanes), the variance two-pass (of
// x - mean, no cancellation). The float expressions match core/cuda/batch_norm.cu term for term
// (explicit fmas where the compilers might contract differently), so the devices differ only in
// the order of the sums.
#include <cmath>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/ops/batch_norm.h"

namespace kiln::cpu {

namespace {

// Calls f(value_index) for every element of channel ch, in (i, j) order.
template <typename F> void for_channel(Index n, Index c, Index l, Index ch, F&& f) {
  for (Index i = 0; i < n; ++i) {
    const Index base = (i * c + ch) * l;
    for (Index j = 0; j < l; ++j) f(base + j);
  }
}

// The sum in double of f(value_index) over channel ch, in kLanes partial sums (each row's values
// dealt round them in turn, then added in lane order): one serial chain of double additions made
// the training passes several times slower than eval's single pass.
template <typename F> double channel_sum(Index n, Index c, Index l, Index ch, F&& f) {
  constexpr Index kLanes = 8;
  double lanes[kLanes] = {};
  for (Index i = 0; i < n; ++i) {
    const Index base = (i * c + ch) * l;
    Index j = 0;
    for (; j + kLanes <= l; j += kLanes)
      for (Index q = 0; q < kLanes; ++q) lanes[q] += f(base + j + q);
    for (; j < l; ++j) lanes[j % kLanes] += f(base + j);
  }
  double total = 0.0;
  for (const double lane : lanes) total += lane;
  return total;
}

void forward_train(const rec::BatchNormForwardTrain& o) {
  const Index n = o.n, c = o.c, l = o.l, m = n * l;
  const float *x = o.x, *gamma = o.gamma, *beta = o.beta;
  const float momentum = o.momentum, eps = o.eps;
  float *running_mean = o.running_mean, *running_var = o.running_var, *y = o.y;
  float *save_mean = o.save_mean, *save_invstd = o.save_invstd;
#pragma omp parallel for if (n * c * l > kParallelMin) schedule(static)
  for (Index ch = 0; ch < c; ++ch) {
    const double mean =
        channel_sum(n, c, l, ch, [&](Index k) { return static_cast<double>(x[k]); }) /
        static_cast<double>(m);
    const double squares = channel_sum(n, c, l, ch, [&](Index k) {
      const double d = x[k] - mean;
      return d * d;
    });
    const double var = squares / static_cast<double>(m);  // biased: what the batch is normalised by
    const float mean_f = static_cast<float>(mean);
    const float invstd = static_cast<float>(1.0 / std::sqrt(var + static_cast<double>(eps)));
    save_mean[ch] = mean_f;
    save_invstd[ch] = invstd;
    rec::update_running_statistics(momentum, mean_f, var, m, running_mean[ch], running_var[ch]);
    const float scale = invstd * gamma[ch], shift = beta[ch];
    for_channel(n, c, l, ch, [&](Index k) { y[k] = std::fma(x[k] - mean_f, scale, shift); });
  }
}

void forward_eval(const rec::BatchNormForwardEval& o) {
  const Index n = o.n, c = o.c, l = o.l;
  const float *x = o.x, *gamma = o.gamma, *beta = o.beta;
  const float *running_mean = o.running_mean, *running_var = o.running_var;
  const float eps = o.eps;
  float* y = o.y;
#pragma omp parallel for if (n * c * l > kParallelMin) schedule(static)
  for (Index ch = 0; ch < c; ++ch) {
    const float invstd =
        static_cast<float>(1.0 / std::sqrt(static_cast<double>(running_var[ch]) + eps));
    const float mean = running_mean[ch], scale = invstd * gamma[ch], shift = beta[ch];
    for_channel(n, c, l, ch, [&](Index k) { y[k] = std::fma(x[k] - mean, scale, shift); });
  }
}

// With xhat = (x - mean) * invstd over m values of a channel:
//   dbeta += sum dy, dgamma += sum dy * xhat,
//   dx = gamma * invstd * (dy - mean(dy) - xhat * mean(dy * xhat))   ("=").
void backward(const rec::BatchNormBackward& o) {
  const Index n = o.n, c = o.c, l = o.l, m = n * l;
  const float *x = o.x, *dy = o.dy, *gamma = o.gamma;
  const float *save_mean = o.save_mean, *save_invstd = o.save_invstd;
  float *dx = o.dx, *dgamma = o.dgamma, *dbeta = o.dbeta;
#pragma omp parallel for if (n * c * l > kParallelMin) schedule(static)
  for (Index ch = 0; ch < c; ++ch) {
    const float mean = save_mean[ch], invstd = save_invstd[ch];
    const double sum_dy =
        channel_sum(n, c, l, ch, [&](Index k) { return static_cast<double>(dy[k]); });
    const double sum_dy_xhat = channel_sum(n, c, l, ch, [&](Index k) {
      return static_cast<double>(dy[k]) * ((x[k] - mean) * invstd);
    });
    dbeta[ch] += static_cast<float>(sum_dy);
    dgamma[ch] += static_cast<float>(sum_dy_xhat);
    const float mean_dy = static_cast<float>(sum_dy / static_cast<double>(m));
    const float mean_dy_xhat = static_cast<float>(sum_dy_xhat / static_cast<double>(m));
    const float scale = gamma[ch] * invstd;
    for_channel(n, c, l, ch, [&](Index k) {
      const float xhat = (x[k] - mean) * invstd;
      dx[k] = scale * (dy[k] - mean_dy - xhat * mean_dy_xhat);
    });
  }
}

const RegisterKernel<op::BatchNormForwardTrain> kTrain(Backend::reference, on_record<forward_train>,
                                                       "fp32", "kiln");
const RegisterKernel<op::BatchNormForwardEval> kEval(Backend::reference, on_record<forward_eval>,
                                                     "fp32", "kiln");
const RegisterKernel<op::BatchNormBackward> kBackward(Backend::reference, on_record<backward>,
                                                      "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
