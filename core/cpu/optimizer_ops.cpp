// CPU multi-tensor optimizer ops: one loop per tensor over the shared element formulas of
// core/optimizer_math.h (the same the CUDA kernels run). The sum of squares accumulates in
// double, tensor after tensor, so its order depends only on the sizes. Loops go parallel only
// past kParallelMin elements; below that thread start-up costs more than the work.
#include <cmath>

#include "kiln/core/cpu/kernels.h"
#include "kiln/core/cpu/parallel_loop.h"

namespace kiln::cpu {

void sgd_step(int count, const Index* sizes, float* const* params, const float* const* grads,
              float* const* momentum_buffers, const SgdConfig& c, bool first_step) {
  for (int t = 0; t < count; ++t) {
    float* p = params[t];
    const float* g = grads[t];
    if (momentum_buffers == nullptr) {
      for_each_index(sizes[t], [=](Index i) {
        float unused = 0.0f;
        p[i] = sgd_update(c, first_step, p[i], g[i], unused);
      });
    } else {
      float* buf = momentum_buffers[t];
      // Two loops rather than "first_step ? 0 : buf[i]": a load under a condition keeps GCC
      // from vectorising, and this pass over every parameter is memory-bound.
      if (first_step) {  // the first step only writes the buffer (it holds uninitialised memory)
        for_each_index(sizes[t], [=](Index i) {
          float b = 0.0f;
          p[i] = sgd_update(c, true, p[i], g[i], b);
          buf[i] = b;
        });
      } else {
        for_each_index(sizes[t], [=](Index i) {
          float b = buf[i];
          p[i] = sgd_update(c, false, p[i], g[i], b);
          buf[i] = b;
        });
      }
    }
  }
}

void adam_step(int count, const Index* sizes, float* const* params, const float* const* grads,
               float* const* exp_avg, float* const* exp_avg_sq, const AdamConfig& c,
               const AdamScalars& s) {
  for (int t = 0; t < count; ++t) {
    float *p = params[t], *m = exp_avg[t], *v = exp_avg_sq[t];
    const float* g = grads[t];
    for_each_index(sizes[t], [=](Index i) {
      float mi = m[i], vi = v[i];
      p[i] = adam_update(c, s, p[i], g[i], mi, vi);
      m[i] = mi;
      v[i] = vi;
    });
  }
}

void multi_sum_squares(int count, const Index* sizes, const float* const* xs, float* out) {
  double total = 0.0;
  for (int t = 0; t < count; ++t) {
    const float* x = xs[t];
    const Index n = sizes[t];
    double sum = 0.0;
#pragma omp parallel for if (n > kParallelMin) schedule(static) reduction(+ : sum)
    for (Index i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
    total += sum;
  }
  out[0] = static_cast<float>(total);
}

void clip_by_global_norm(int count, const Index* sizes, float* const* xs, const float* norm_sq,
                         float max_norm, float* norm) {
  const float coef = clip_coefficient(norm_sq[0], max_norm);
  if (norm != nullptr) norm[0] = sqrtf(norm_sq[0]);
  if (coef == 1.0f) return;  // at or under max_norm: x * 1 == x, so skip the pass
  for (int t = 0; t < count; ++t) {
    float* x = xs[t];
    for_each_index(sizes[t], [=](Index i) { x[i] *= coef; });
  }
}

void clamp_(int count, const Index* sizes, float* const* xs, float lo, float hi) {
  for (int t = 0; t < count; ++t) {
    float* x = xs[t];
    for_each_index(sizes[t], [=](Index i) { x[i] = clamp_value(x[i], lo, hi); });
  }
}

}  // namespace kiln::cpu
