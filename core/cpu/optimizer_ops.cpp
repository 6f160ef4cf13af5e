// CPU multi-tensor optimizer ops: one loop per tensor over the shared element formulas of
// core/optimizer_math.h (the same the CUDA kernels run). The sum of squares accumulates in
// double, tensor after tensor, so its order depends only on the sizes. Loops go parallel only
// past kParallelMin elements; below that thread start-up costs more than the work. A parameter's
// bf16 copy, where it keeps one, is written in the update's own pass.
#include <cmath>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/cpu/bf16.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/ops/optimizer_ops.h"

namespace kiln::cpu {

namespace {

// p[i] = update(i) for every element of one tensor, and, when the parameter keeps a bf16 copy
// (MatmulPrecision::bf16 on the CPU), copy[i] = its bf16 rounding in the same pass: the copy the
// next products read costs no pass of its own. update may write other state at i (buffers).
template <typename Update>
void update_each(Index n, float* p, std::uint16_t* copy, const Update& update) {
  if (copy == nullptr) return for_each_index(n, [=](Index i) { p[i] = update(i); });
  for_each_index(n, [=](Index i) {
    const float v = update(i);
    p[i] = v;
    copy[i] = bf16_bits(v);
  });
}

std::uint16_t* copy_of(std::uint16_t* const* copies, int t) {
  return copies != nullptr ? copies[t] : nullptr;
}

// The CPU reads the per-step row on the host and moves the cursor itself.
void sgd_step(const rec::SgdStep& o) {
  SgdConfig c = o.config;
  if (o.per_step.rows != nullptr) c.lr = current_row(o.per_step)[0];
  const bool first_step = o.first_step;
  for (int t = 0; t < o.count; ++t) {
    float* p = o.params[t];
    const float* g = o.grads[t];
    std::uint16_t* copy = copy_of(o.bf16_copies, t);
    if (o.momentum_buffers == nullptr) {
      update_each(o.sizes[t], p, copy, [=](Index i) {
        float unused = 0.0f;
        return sgd_update(c, first_step, p[i], g[i], unused);
      });
    } else {
      float* buf = o.momentum_buffers[t];
      // Two loops rather than "first_step ? 0 : buf[i]": a load under a condition keeps GCC
      // from vectorising, and this pass over every parameter is memory-bound.
      if (first_step) {  // the first step only writes the buffer (it holds uninitialised memory)
        update_each(o.sizes[t], p, copy, [=](Index i) {
          float b = 0.0f;
          const float v = sgd_update(c, true, p[i], g[i], b);
          buf[i] = b;
          return v;
        });
      } else {
        update_each(o.sizes[t], p, copy, [=](Index i) {
          float b = buf[i];
          const float v = sgd_update(c, false, p[i], g[i], b);
          buf[i] = b;
          return v;
        });
      }
    }
  }
  if (o.per_step.rows != nullptr) ++*o.per_step.cursor;
}

// Adam over n elements from p, g, m, v (and p's bf16 copy, if any): a plain loop over arguments,
// which GCC vectorises (with sqrtf errno-free, core/CMakeLists.txt), where the same loop through
// the nested lambdas of update_each stays scalar, a square root and two divisions at a time.
void adam_stretch(AdamConfig c, AdamScalars s, Index n, float* p, const float* g, float* m,
                  float* v, std::uint16_t* copy) {
  for (Index i = 0; i < n; ++i) {
    float mi = m[i], vi = v[i];
    p[i] = adam_update(c, s, p[i], g[i], mi, vi);
    m[i] = mi;
    v[i] = vi;
  }
  if (copy != nullptr)
    for (Index i = 0; i < n; ++i) copy[i] = bf16_bits(p[i]);
}

void adam_step(const rec::AdamStep& o) {
  const AdamScalars s =
      o.per_step.rows != nullptr ? adam_scalars_from_row(current_row(o.per_step)) : o.scalars;
  for (int t = 0; t < o.count; ++t) {
    float *p = o.params[t], *m = o.exp_avg[t], *v = o.exp_avg_sq[t];
    const float* g = o.grads[t];
    std::uint16_t* copy = copy_of(o.bf16_copies, t);
    const AdamConfig c = config_for_tensor(o.config, o.decayed == nullptr || o.decayed[t] != 0);
    for_each_chunk(o.sizes[t], [=](Index begin, Index count) {
      adam_stretch(c, s, count, p + begin, g + begin, m + begin, v + begin,
                   copy != nullptr ? copy + begin : nullptr);
    });
  }
  if (o.per_step.rows != nullptr) ++*o.per_step.cursor;
}

void multi_sum_squares(const rec::MultiSumSquares& o) {
  double total = 0.0;
  for (int t = 0; t < o.count; ++t) {
    const float* x = o.xs[t];
    const Index n = o.sizes[t];
    double sum = 0.0;
#pragma omp parallel for if (n > kParallelMin) schedule(static) reduction(+ : sum)
    for (Index i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
    total += sum;
  }
  o.out[0] = static_cast<float>(total);
}

void clip_by_global_norm(const rec::ClipByGlobalNorm& o) {
  const float coef = clip_coefficient(o.norm_sq[0], o.max_norm);
  if (o.norm != nullptr) o.norm[0] = sqrtf(o.norm_sq[0]);
  if (coef == 1.0f) return;  // at or under max_norm: x * 1 == x, so skip the pass
  for (int t = 0; t < o.count; ++t) {
    float* x = o.xs[t];
    for_each_index(o.sizes[t], [=](Index i) { x[i] *= coef; });
  }
}

void clamp_(const rec::Clamp& o) {
  const float lo = o.lo, hi = o.hi;
  for (int t = 0; t < o.count; ++t) {
    float* x = o.xs[t];
    for_each_index(o.sizes[t], [=](Index i) { x[i] = clamp_value(x[i], lo, hi); });
  }
}

const RegisterKernel<op::SgdStep> kSgd(Backend::reference, on_record<sgd_step>, "fp32", "kiln");
const RegisterKernel<op::AdamStep> kAdam(Backend::reference, on_record<adam_step>, "fp32", "kiln");
const RegisterKernel<op::MultiSumSquares> kSumSquares(Backend::reference,
                                                      on_record<multi_sum_squares>, "fp32", "kiln");
const RegisterKernel<op::ClipByGlobalNorm> kClip(Backend::reference, on_record<clip_by_global_norm>,
                                                 "fp32", "kiln");
const RegisterKernel<op::Clamp> kClamp(Backend::reference, on_record<clamp_>, "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
