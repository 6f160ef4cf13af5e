// count_correct on the GPU: one warp per row finds the row's first maximum; hits are summed
// per block in shared memory and added to the int32 count with one atomicAdd per block, exact in
// any order.
#include "kiln/core/cuda/check.h"
#include "kiln/core/ops/metrics_record.h"

namespace kiln::cuda {

namespace {

constexpr int kWarpsPerBlock = 8;

__global__ void count_correct_kernel(Index rows, Index cols, const float* logits,
                                     const std::int32_t* labels, std::int32_t* correct) {
  __shared__ int block_hits;
  if (threadIdx.x == 0) block_hits = 0;
  __syncthreads();
  const int lane = threadIdx.x % 32;
  const Index row = static_cast<Index>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (row < rows) {
    const float* x = logits + row * cols;
    float best = -INFINITY;
    Index best_index = cols;  // larger than any real index: loses every tie
    for (Index c = lane; c < cols; c += 32) {
      if (x[c] > best || (x[c] == best && c < best_index)) {
        best = x[c];
        best_index = c;
      }
    }
    // Warp reduction keeping the larger value, and the smaller index on ties.
    for (int offset = 16; offset > 0; offset /= 2) {
      const float other = __shfl_down_sync(0xffffffffu, best, offset);
      const Index other_index = __shfl_down_sync(0xffffffffu, best_index, offset);
      if (other > best || (other == best && other_index < best_index)) {
        best = other;
        best_index = other_index;
      }
    }
    // The CPU's rule for NaN (core/cpu/metrics.cpp): no NaN beats the running best, so a NaN
    // in column 0 is never replaced and the row's answer is 0.
    if (lane == 0 && isnan(x[0])) best_index = 0;
    if (lane == 0 && best_index == labels[row]) atomicAdd(&block_hits, 1);
  }
  __syncthreads();
  if (threadIdx.x == 0 && block_hits > 0) atomicAdd(correct, block_hits);
}

}  // namespace

void count_correct(const rec::CountCorrect& o, cudaStream_t stream) {
  const Index rows = o.rows, cols = o.cols;
  const float* logits = o.logits;
  const std::int32_t* labels = o.labels;
  std::int32_t* correct = o.correct;
  if (rows == 0) return;
  const auto blocks = static_cast<unsigned>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
  count_correct_kernel<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(rows, cols, logits, labels,
                                                                   correct);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
