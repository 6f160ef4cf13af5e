// CUDA softmax, log_softmax and the fused softmax cross-entropy over rows of length cols. Rows
// are shifted by their maximum before exp (no overflow); cross-entropy uses log p = x - lse, so
// a vanishing probability gives a large finite loss. An out-of-range label is not checked on the
// host (that would synchronise): its row's loss, and its row of dlogits, become NaN instead.
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/ops/softmax_record.h"

namespace kiln::cuda {

namespace {

using detail::kThreads;
using detail::kWarp;

// Rows up to this length get one warp each (8 rows per block); longer rows get the whole block.
constexpr Index kWarpRowMax = 1024;

__device__ __forceinline__ float quiet_nan() { return __int_as_float(0x7fc00000); }

struct RowMax {
  __device__ float operator()(float a, float b) const { return b > a ? b : a; }
};

// The max and the sum of exp(x - max) of one row, identical in every thread of its group.
struct RowStats {
  float max, sum;
};
template <int kGroup>
__device__ __forceinline__ RowStats row_stats(const float* row, Index cols, int lane,
                                              float* scratch) {
  float m = -INFINITY;
  for (Index c = lane; c < cols; c += kGroup) m = row[c] > m ? row[c] : m;
  m = detail::group_reduce<kGroup>(m, RowMax(), scratch);
  float s = 0.0f;
  for (Index c = lane; c < cols; c += kGroup) s += expf(row[c] - m);
  s = detail::group_reduce<kGroup>(s, detail::Add(), scratch);
  return {m, s};
}

// The block's rows, kThreads / kGroup at a time; the loop is uniform over the block, as the
// barriers inside group_reduce need. Rows past the end still take part in the reductions.
template <int kGroup, bool kLog>
__global__ void softmax_kernel(Index rows, Index cols, const float* x, float* y) {
  __shared__ float scratch[kThreads / kWarp];
  constexpr int kRowsPerBlock = kThreads / kGroup;
  const int lane = threadIdx.x % kGroup, slot = threadIdx.x / kGroup;
  for (Index first = static_cast<Index>(blockIdx.x) * kRowsPerBlock; first < rows;
       first += static_cast<Index>(gridDim.x) * kRowsPerBlock) {
    const Index row = first + slot < rows ? first + slot : rows - 1;  // a duplicate never writes
    const float* in = x + row * cols;
    const RowStats st = row_stats<kGroup>(in, cols, lane, scratch);
    if (first + slot >= rows) continue;
    float* out = y + row * cols;
    if constexpr (kLog) {
      const float log_sum = logf(st.sum);
      for (Index c = lane; c < cols; c += kGroup) out[c] = (in[c] - st.max) - log_sum;
    } else {
      for (Index c = lane; c < cols; c += kGroup) out[c] = expf(in[c] - st.max) / st.sum;
    }
  }
}

// probs = softmax(logits); loss = (1 - eps)(lse - x_label) + eps / C * sum_c (lse - x_c), which
// is -sum_c target_c log p_c for target = (1 - eps) onehot + eps / C (core/cpu/softmax.cpp), with
// lse = logsumexp(x).
template <int kGroup>
__global__ void cross_entropy_forward_kernel(Index rows, Index cols, const float* logits,
                                             const std::int32_t* labels, float eps, float* probs,
                                             float* losses, std::int32_t ignore_index,
                                             float* counted) {
  __shared__ float scratch[kThreads / kWarp];
  constexpr int kRowsPerBlock = kThreads / kGroup;
  const int lane = threadIdx.x % kGroup, slot = threadIdx.x / kGroup;
  for (Index first = static_cast<Index>(blockIdx.x) * kRowsPerBlock; first < rows;
       first += static_cast<Index>(gridDim.x) * kRowsPerBlock) {
    const bool real = first + slot < rows;
    const Index row = real ? first + slot : rows - 1;
    const float* in = logits + row * cols;
    const RowStats st = row_stats<kGroup>(in, cols, lane, scratch);
    // -log p_c = lse - x_c = log_sum - (x_c - max): never forming lse = max + log_sum keeps a
    // small loss (a confident, correct row) accurate to its own size rather than to max's ulp.
    const float log_sum = logf(st.sum);
    float sum_neg_log_p = 0.0f;
    if (eps != 0.0f) {  // uniform over the grid: every group reduces or none does
      for (Index c = lane; c < cols; c += kGroup) sum_neg_log_p += log_sum - (in[c] - st.max);
      sum_neg_log_p = detail::group_reduce<kGroup>(sum_neg_log_p, detail::Add(), scratch);
    }
    if (!real) continue;
    float* p = probs + row * cols;
    for (Index c = lane; c < cols; c += kGroup) p[c] = expf(in[c] - st.max) / st.sum;
    if (lane == 0) {
      const std::int32_t label = labels[row];
      float loss = quiet_nan();  // the label is compared before it is ever used as an index
      if (counted != nullptr) counted[row] = label == ignore_index ? 0.0f : 1.0f;
      if (label == ignore_index) {
        loss = 0.0f;
      } else if (label >= 0 && label < cols) {
        loss = (1.0f - eps) * (log_sum - (in[label] - st.max));
        if (eps != 0.0f) loss += eps / static_cast<float>(cols) * sum_neg_log_p;
      }
      losses[row] = loss;
    }
  }
}

// dlogits = grad_scale * (probs - target), "=": overwritten. on/off are the CPU's float values.
__global__ void cross_entropy_backward_kernel(Index rows, Index cols, const float* probs,
                                              const std::int32_t* labels, float grad_scale,
                                              float on_target, float off_target,
                                              std::int32_t ignore_index, const float* divisor,
                                              float* dlogits) {
  const Index total = rows * cols;
  if (divisor != nullptr) grad_scale /= *divisor;  // the same float division as the CPU's
  for (Index i = detail::grid_start(); i < total; i += detail::grid_stride()) {
    const Index r = i / cols, c = i - r * cols;
    const std::int32_t label = labels[r];
    dlogits[i] = label == ignore_index ? 0.0f
                 : label < 0 || label >= cols
                     ? quiet_nan()
                     : grad_scale * (probs[i] - (c == label ? on_target : off_target));
  }
}

}  // namespace

void softmax(const rec::Softmax& o, cudaStream_t stream) {
  const Index rows = o.rows, cols = o.cols;
  const float* x = o.x;
  float* y = o.y;
  const bool log = o.log;
  if (rows == 0 || cols == 0) return;
  if (cols <= kWarpRowMax) {
    const unsigned int blocks = detail::blocks_for(rows, kThreads / kWarp);
    if (log)
      softmax_kernel<kWarp, true><<<blocks, kThreads, 0, stream>>>(rows, cols, x, y);
    else
      softmax_kernel<kWarp, false><<<blocks, kThreads, 0, stream>>>(rows, cols, x, y);
  } else {
    const unsigned int blocks = detail::blocks_for(rows, 1);
    if (log)
      softmax_kernel<kThreads, true><<<blocks, kThreads, 0, stream>>>(rows, cols, x, y);
    else
      softmax_kernel<kThreads, false><<<blocks, kThreads, 0, stream>>>(rows, cols, x, y);
  }
  KILN_CUDA_CHECK_LAUNCH();
}

void softmax_cross_entropy_forward(const rec::SoftmaxCrossEntropyForward& o, cudaStream_t stream) {
  const Index rows = o.rows, cols = o.cols;
  const float* logits = o.logits;
  const std::int32_t* labels = o.labels;
  const float label_smoothing = o.label_smoothing;
  float *probs = o.probs, *losses = o.losses;
  const std::int32_t ignore_index = o.ignore_index;
  float* counted = o.counted;
  if (rows == 0 || cols == 0) return;
  if (cols <= kWarpRowMax) {
    cross_entropy_forward_kernel<kWarp>
        <<<detail::blocks_for(rows, kThreads / kWarp), kThreads, 0, stream>>>(
            rows, cols, logits, labels, label_smoothing, probs, losses, ignore_index, counted);
  } else {
    cross_entropy_forward_kernel<kThreads><<<detail::blocks_for(rows, 1), kThreads, 0, stream>>>(
        rows, cols, logits, labels, label_smoothing, probs, losses, ignore_index, counted);
  }
  KILN_CUDA_CHECK_LAUNCH();
}

void softmax_cross_entropy_backward(const rec::SoftmaxCrossEntropyBackward& o,
                                    cudaStream_t stream) {
  const Index rows = o.rows, cols = o.cols;
  const float* probs = o.probs;
  const std::int32_t* labels = o.labels;
  const float grad_scale = o.grad_scale, label_smoothing = o.label_smoothing;
  const std::int32_t ignore_index = o.ignore_index;
  const float* divisor = o.divisor;
  float* dlogits = o.dlogits;
  if (rows == 0 || cols == 0) return;
  // The same float expressions as core/cpu/softmax.cpp, so the targets agree to the bit.
  const float off_target = label_smoothing / static_cast<float>(cols);
  const float on_target = 1.0f - label_smoothing + off_target;
  cross_entropy_backward_kernel<<<detail::blocks_for(rows * cols), kThreads, 0, stream>>>(
      rows, cols, probs, labels, grad_scale, on_target, off_target, ignore_index, divisor, dlogits);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
