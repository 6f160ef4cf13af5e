// CPU causal attention, blocked so that no T x T matrix is kept: each head's queries go in blocks
// of kBlock rows against the keys up to the block's last position (a kBlock x T scratch per
// thread), softmax rows as causal_softmax's (max shift, vectorised exp, sum in double), products
// by Eigen's GEMM on one thread per head (heads over the OpenMP pool). Backward recomputes each
// block's probabilities from q, k and the row's log-sum-exp.
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/cpu/vector_math.h"
#include "kiln/core/ops/causal_attention.h"

namespace kiln::cpu {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Matrix = Eigen::Map<RowMatrix>;
using ConstMatrix = Eigen::Map<const RowMatrix>;

constexpr Index kBlock = 64;  // query rows per block: a 64 x T block of scores stays in L2

// The thread's scratch of at least n floats (kept between calls: a step allocates nothing).
float* scratch(std::vector<float>& buffer, Index n) {
  if (static_cast<Index>(buffer.size()) < n) buffer.resize(static_cast<std::size_t>(n));
  return buffer.data();
}

// Row a of scores (of `cols` columns, query i) into probabilities over its first i + 1 columns
// given their log-sum-exp, the rest exactly 0.
void probabilities_from_lse(float* row, Index seen, Index cols, float lse) {
  array_of(row, seen) -= lse;
  exp_into(seen, row, row);
  std::fill(row + seen, row + cols, 0.0f);
}

void forward(const rec::CausalAttentionForward& o) {
  const Index t = o.t, d = o.d;
#pragma omp parallel for schedule(static) if (o.n > 1)
  for (Index n = 0; n < o.n; ++n) {
    thread_local std::vector<float> buffer;
    float* s = scratch(buffer, kBlock * t);
    const ConstMatrix q(o.q + n * t * d, t, d), k(o.k + n * t * d, t, d), v(o.v + n * t * d, t, d);
    Matrix y(o.y + n * t * d, t, d);
    float* lse = o.lse + n * t;
    for (Index i0 = 0; i0 < t; i0 += kBlock) {
      const Index rows = std::min(kBlock, t - i0), keys = i0 + rows;
      Matrix scores(s, rows, keys);
      scores.noalias() = o.scale * q.middleRows(i0, rows) * k.topRows(keys).transpose();
      for (Index a = 0; a < rows; ++a) {
        float* row = s + a * keys;
        const Index seen = i0 + a + 1;
        const float m = *std::max_element(row, row + seen);
        array_of(row, seen) -= m;
        exp_into(seen, row, row);
        double sum = 0.0;
        for (Index j = 0; j < seen; ++j) sum += static_cast<double>(row[j]);
        lse[i0 + a] = m + static_cast<float>(std::log(sum));
        array_of(row, seen) *= static_cast<float>(1.0 / sum);
        std::fill(row + seen, row + keys, 0.0f);
      }
      y.middleRows(i0, rows).noalias() = scores * v.topRows(keys);
    }
  }
}

void backward(const rec::CausalAttentionBackward& o) {
  const Index t = o.t, d = o.d;
#pragma omp parallel for schedule(static) if (o.n > 1)
  for (Index n = 0; n < o.n; ++n) {
    thread_local std::vector<float> p_buffer, dp_buffer;
    float* p = scratch(p_buffer, kBlock * t);
    float* dp = scratch(dp_buffer, kBlock * t);
    const Index at = n * t * d;
    const ConstMatrix q(o.q + at, t, d), k(o.k + at, t, d), v(o.v + at, t, d), y(o.y + at, t, d),
        dy(o.dy + at, t, d);
    Matrix dq(o.dq + at, t, d), dk(o.dk + at, t, d), dv(o.dv + at, t, d);
    dk.setZero();
    dv.setZero();
    const float* lse = o.lse + n * t;
    for (Index i0 = 0; i0 < t; i0 += kBlock) {
      const Index rows = std::min(kBlock, t - i0), keys = i0 + rows;
      Matrix probabilities(p, rows, keys), d_scores(dp, rows, keys);
      probabilities.noalias() = o.scale * q.middleRows(i0, rows) * k.topRows(keys).transpose();
      for (Index a = 0; a < rows; ++a)
        probabilities_from_lse(p + a * keys, i0 + a + 1, keys, lse[i0 + a]);
      dv.topRows(keys).noalias() += probabilities.transpose() * dy.middleRows(i0, rows);
      d_scores.noalias() = dy.middleRows(i0, rows) * v.topRows(keys).transpose();
      for (Index a = 0; a < rows; ++a) {  // dS = P (dP - sum_j P dP), and sum_j P dP = dy . y
        double dot = 0.0;
        for (Index c = 0; c < d; ++c)
          dot += static_cast<double>(dy(i0 + a, c)) * static_cast<double>(y(i0 + a, c));
        const auto shift = static_cast<float>(dot);
        float* row = dp + a * keys;
        const float* pr = p + a * keys;
        for (Index j = 0; j < keys; ++j) row[j] = pr[j] * (row[j] - shift);
      }
      dq.middleRows(i0, rows).noalias() = o.scale * d_scores * k.topRows(keys);
      dk.topRows(keys).noalias() += o.scale * d_scores.transpose() * q.middleRows(i0, rows);
    }
  }
}

const RegisterKernel<op::CausalAttentionForward> kForward(Backend::reference, on_record<forward>,
                                                          "fp32", "kiln (Eigen)");
const RegisterKernel<op::CausalAttentionBackward> kBackward(Backend::reference, on_record<backward>,
                                                            "fp32", "kiln (Eigen)");

}  // namespace

}  // namespace kiln::cpu
