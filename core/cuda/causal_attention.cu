// kiln's CUDA causal attention, for what cuDNN's fused kernel does not take (fp32 and tf32
// products, head sizes cuDNN refuses): one warp per row, lanes over positions for the scores and
// over features for the products, no T x T matrix. The CPU reference's steps (a NaN-carrying
// maximum, exp, the sum in double, backward from the log-sum-exp) in plain fp32, so the two agree
// to the harness's reduction tolerance; slower than the unfused cuBLAS products, which the layer
// keeps on the GPU outside bf16.
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/cuda/stream_scratch.cuh"
#include "kiln/core/ops/causal_attention_record.h"

namespace kiln::cuda {

namespace {

using detail::kThreads;
using detail::kWarp;
constexpr int kRowsPerBlock = kThreads / kWarp;
constexpr unsigned int kAllLanes = 0xffffffffu;

// max that keeps a NaN from either side, as the CPU's std::max_element over a row reaching one.
struct NanMax {
  __device__ float operator()(float a, float b) const { return (b > a || b != b) ? b : a; }
};

__device__ __forceinline__ Index first_row() {
  return static_cast<Index>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kWarp;
}
__device__ __forceinline__ Index row_stride() {
  return static_cast<Index>(gridDim.x) * kRowsPerBlock;
}

__device__ __forceinline__ float dot(const float* a, const float* b, Index d) {
  float s = 0.0f;
  for (Index c = 0; c < d; ++c) s = fmaf(a[c], b[c], s);
  return s;
}

// Row r = (head, query i): the maximum score over j <= i, then exp(s - max) summed in double and
// accumulated into y against v, y divided by the sum, lse = max + log(sum).
__global__ void forward_kernel(rec::CausalAttentionForward o) {
  const int lane = threadIdx.x % kWarp;
  const Index t = o.t, d = o.d;
  for (Index r = first_row(); r < o.n * t; r += row_stride()) {
    const Index i = r % t, head = (r / t) * t * d;
    const float* q = o.q + r * d;
    const float *k = o.k + head, *v = o.v + head;
    float* y = o.y + r * d;
    float m = -INFINITY;
    for (Index j = lane; j <= i; j += kWarp) m = NanMax()(m, o.scale * dot(q, k + j * d, d));
    m = detail::group_reduce<kWarp>(m, NanMax(), static_cast<float*>(nullptr));
    for (Index c = lane; c < d; c += kWarp) y[c] = 0.0f;
    double sum = 0.0;
    for (Index j0 = 0; j0 <= i; j0 += kWarp) {
      const Index j = j0 + lane;
      const float e = j <= i ? expf(o.scale * dot(q, k + j * d, d) - m) : 0.0f;
      sum += e;
      const int count = static_cast<int>(i + 1 - j0 < kWarp ? i + 1 - j0 : kWarp);
      for (int jj = 0; jj < count; ++jj) {
        const float w = __shfl_sync(kAllLanes, e, jj);
        const float* vj = v + (j0 + jj) * d;
        for (Index c = lane; c < d; c += kWarp) y[c] = fmaf(w, vj[c], y[c]);
      }
    }
    sum = detail::group_reduce<kWarp>(sum, detail::Add(), static_cast<double*>(nullptr));
    const auto inverse = static_cast<float>(1.0 / sum);
    for (Index c = lane; c < d; c += kWarp) y[c] *= inverse;
    if (lane == 0) o.lse[r] = m + static_cast<float>(log(sum));
  }
}

// delta[r] = dy[r] . y[r] (in double, as the CPU), which is sum_j P dP of row r.
__global__ void delta_kernel(rec::CausalAttentionBackward o, float* delta) {
  const int lane = threadIdx.x % kWarp;
  for (Index r = first_row(); r < o.n * o.t; r += row_stride()) {
    double s = 0.0;
    for (Index c = lane; c < o.d; c += kWarp)
      s += static_cast<double>(o.dy[r * o.d + c]) * static_cast<double>(o.y[r * o.d + c]);
    s = detail::group_reduce<kWarp>(s, detail::Add(), static_cast<double*>(nullptr));
    if (lane == 0) delta[r] = static_cast<float>(s);
  }
}

// P and dS of query i against key j: p = exp(scale q_i . k_j - lse_i), ds = p (dy_i . v_j -
// delta_i).
struct Pair {
  float p, ds;
};
__device__ __forceinline__ Pair pair(const rec::CausalAttentionBackward& o, const float* delta,
                                     Index head, Index i, Index j) {
  const Index d = o.d, qi = head + i * d, kj = head + j * d;
  const float p = expf(o.scale * dot(o.q + qi, o.k + kj, d) - o.lse[qi / d]);
  return {p, p * (dot(o.dy + qi, o.v + kj, d) - delta[qi / d])};
}

// Row r = (head, query i): dq_i = scale sum_{j <= i} ds_ij k_j.
__global__ void dq_kernel(rec::CausalAttentionBackward o, const float* delta) {
  const int lane = threadIdx.x % kWarp;
  const Index t = o.t, d = o.d;
  for (Index r = first_row(); r < o.n * t; r += row_stride()) {
    const Index i = r % t, head = (r / t) * t * d;
    float* dq = o.dq + r * d;
    for (Index c = lane; c < d; c += kWarp) dq[c] = 0.0f;
    for (Index j0 = 0; j0 <= i; j0 += kWarp) {
      const Index j = j0 + lane;
      const float ds = j <= i ? pair(o, delta, head, i, j).ds : 0.0f;
      const int count = static_cast<int>(i + 1 - j0 < kWarp ? i + 1 - j0 : kWarp);
      for (int jj = 0; jj < count; ++jj) {
        const float w = o.scale * __shfl_sync(kAllLanes, ds, jj);
        const float* kj = o.k + head + (j0 + jj) * d;
        for (Index c = lane; c < d; c += kWarp) dq[c] = fmaf(w, kj[c], dq[c]);
      }
    }
  }
}

// Row r = (head, key j): dv_j = sum_{i >= j} p_ij dy_i, dk_j = scale sum_{i >= j} ds_ij q_i.
__global__ void dkv_kernel(rec::CausalAttentionBackward o, const float* delta) {
  const int lane = threadIdx.x % kWarp;
  const Index t = o.t, d = o.d;
  for (Index r = first_row(); r < o.n * t; r += row_stride()) {
    const Index j = r % t, head = (r / t) * t * d;
    float *dk = o.dk + r * d, *dv = o.dv + r * d;
    for (Index c = lane; c < d; c += kWarp) dk[c] = dv[c] = 0.0f;
    for (Index i0 = j; i0 < t; i0 += kWarp) {
      const Index i = i0 + lane;
      const Pair pr = i < t ? pair(o, delta, head, i, j) : Pair{0.0f, 0.0f};
      const int count = static_cast<int>(t - i0 < kWarp ? t - i0 : kWarp);
      for (int ii = 0; ii < count; ++ii) {
        const float p = __shfl_sync(kAllLanes, pr.p, ii);
        const float ds = o.scale * __shfl_sync(kAllLanes, pr.ds, ii);
        const Index at = head + (i0 + ii) * d;
        for (Index c = lane; c < d; c += kWarp) {
          dv[c] = fmaf(p, o.dy[at + c], dv[c]);
          dk[c] = fmaf(ds, o.q[at + c], dk[c]);
        }
      }
    }
  }
}

unsigned int row_blocks(Index rows) { return detail::blocks_for(rows, kRowsPerBlock); }

}  // namespace

void causal_attention_forward(const rec::CausalAttentionForward& o, cudaStream_t stream) {
  if (o.n * o.t == 0) return;
  forward_kernel<<<row_blocks(o.n * o.t), kThreads, 0, stream>>>(o);
  KILN_CUDA_CHECK_LAUNCH();
}

void causal_attention_backward(const rec::CausalAttentionBackward& o, cudaStream_t stream) {
  const Index rows = o.n * o.t;
  if (rows == 0) return;
  StreamScratch delta(static_cast<std::size_t>(rows) * sizeof(float), stream);
  auto* dot_dy_y = static_cast<float*>(delta.get());
  delta_kernel<<<row_blocks(rows), kThreads, 0, stream>>>(o, dot_dy_y);
  KILN_CUDA_CHECK_LAUNCH();
  dq_kernel<<<row_blocks(rows), kThreads, 0, stream>>>(o, dot_dy_y);
  KILN_CUDA_CHECK_LAUNCH();
  dkv_kernel<<<row_blocks(rows), kThreads, 0, stream>>>(o, dot_dy_y);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
