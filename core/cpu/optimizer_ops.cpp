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

}  // namespace

void sgd_step(int count, const Index* sizes, float* const* params, const float* const* grads,
              float* const* momentum_buffers, const SgdConfig& c, bool first_step,
              std::uint16_t* const* bf16_copies) {
  for (int t = 0; t < count; ++t) {
    float* p = params[t];
    const float* g = grads[t];
    std::uint16_t* copy = copy_of(bf16_copies, t);
    if (momentum_buffers == nullptr) {
      update_each(sizes[t], p, copy, [=](Index i) {
        float unused = 0.0f;
        return sgd_update(c, first_step, p[i], g[i], unused);
      });
    } else {
      float* buf = momentum_buffers[t];
      // Two loops rather than "first_step ? 0 : buf[i]": a load under a condition keeps GCC
      // from vectorising, and this pass over every parameter is memory-bound.
      if (first_step) {  // the first step only writes the buffer (it holds uninitialised memory)
        update_each(sizes[t], p, copy, [=](Index i) {
          float b = 0.0f;
          const float v = sgd_update(c, true, p[i], g[i], b);
          buf[i] = b;
          return v;
        });
      } else {
        update_each(sizes[t], p, copy, [=](Index i) {
          float b = buf[i];
          const float v = sgd_update(c, false, p[i], g[i], b);
          buf[i] = b;
          return v;
        });
      }
    }
  }
}

void adam_step(int count, const Index* sizes, float* const* params, const float* const* grads,
               float* const* exp_avg, float* const* exp_avg_sq, const AdamConfig& config,
               const AdamScalars& s, std::uint16_t* const* bf16_copies,
               const std::uint8_t* decayed) {
  for (int t = 0; t < count; ++t) {
    float *p = params[t], *m = exp_avg[t], *v = exp_avg_sq[t];
    const float* g = grads[t];
    const AdamConfig c = config_for_tensor(config, decayed == nullptr || decayed[t] != 0);
    update_each(sizes[t], p, copy_of(bf16_copies, t), [=](Index i) {
      float mi = m[i], vi = v[i];
      const float out = adam_update(c, s, p[i], g[i], mi, vi);
      m[i] = mi;
      v[i] = vi;
      return out;
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

namespace {

std::uint16_t* const* copies_or_null(const std::vector<std::uint16_t*>& copies) {
  return copies.empty() ? nullptr : copies.data();
}

// The CPU reads the per-step row on the host and moves the cursor itself.
void sgd_kernel(op::SgdStep& o) {
  SgdConfig config = o.config;
  if (o.rows.rows != nullptr) config.lr = current_row(o.rows)[0];
  const op::TensorLists& l = o.lists;
  sgd_step(l.count, l.sizes.data(), l.a.data(), l.b.data(), l.c.empty() ? nullptr : l.c.data(),
           config, o.first_step, copies_or_null(o.copies));
  if (o.rows.rows != nullptr) ++*o.rows.cursor;
}

void adam_kernel(op::AdamStep& o) {
  const AdamScalars scalars =
      o.rows.rows != nullptr ? adam_scalars_from_row(current_row(o.rows)) : o.scalars;
  const op::TensorLists& l = o.lists;
  adam_step(l.count, l.sizes.data(), l.a.data(), l.b.data(), l.c.data(), l.d.data(), o.config,
            scalars, copies_or_null(o.copies), o.decayed.empty() ? nullptr : o.decayed.data());
  if (o.rows.rows != nullptr) ++*o.rows.cursor;
}

void sum_squares_kernel(op::MultiSumSquares& o) {
  multi_sum_squares(o.lists.count, o.lists.sizes.data(), o.lists.a.data(), o.out.data<float>());
}

void clip_kernel(op::ClipByGlobalNorm& o) {
  clip_by_global_norm(o.lists.count, o.lists.sizes.data(), o.lists.a.data(),
                      o.norm_sq.data<float>(), o.max_norm,
                      o.norm != nullptr ? o.norm->data<float>() : nullptr);
}

void clamp_kernel(op::Clamp& o) {
  clamp_(o.lists.count, o.lists.sizes.data(), o.lists.a.data(), o.lo, o.hi);
}

const RegisterKernel<op::SgdStep> kSgd(Backend::reference, sgd_kernel, "fp32", "kiln");
const RegisterKernel<op::AdamStep> kAdam(Backend::reference, adam_kernel, "fp32", "kiln");
const RegisterKernel<op::MultiSumSquares> kSumSquares(Backend::reference, sum_squares_kernel,
                                                      "fp32", "kiln");
const RegisterKernel<op::ClipByGlobalNorm> kClip(Backend::reference, clip_kernel, "fp32", "kiln");
const RegisterKernel<op::Clamp> kClamp(Backend::reference, clamp_kernel, "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
