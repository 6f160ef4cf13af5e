// CUDA reductions of x viewed as (outer, n, inner) along n into out (outer, inner): sum, mean,
// max, argmax (first index of the maximum, NaN wins as on the CPU) and the global sum of squares.
// Sums accumulate in double like core/cpu/reduce.cpp. Every reduction combines in a fixed tree
// order set by the launch shape alone (no atomics), so results are the same on every run.
#include <algorithm>
#include <climits>

#include "kiln/core/caching_allocator.h"
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/context.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/cuda/stream_scratch.cuh"
#include "kiln/core/ops/reduce_record.h"

namespace kiln::cuda {

namespace {

using detail::kThreads;
using detail::kWarp;

// A reducer: the accumulator type, its identity, how one input (value, index along n) enters it,
// how two partial accumulators combine (operator()), and the output it finishes as.
template <bool kMean> struct SumReducer {
  using Acc = double;
  using Out = float;
  __device__ static Acc identity() { return 0.0; }
  __device__ static Acc add(Acc a, float v, Index) { return a + v; }
  __device__ Acc operator()(Acc a, Acc b) const { return a + b; }
  __device__ static Out finish(Acc a, Index n) {
    return static_cast<float>(kMean ? a / static_cast<double>(n) : a);
  }
};

struct MaxReducer {
  using Acc = float;
  using Out = float;
  __device__ static Acc identity() { return -INFINITY; }
  __device__ static Acc add(Acc a, float v, Index) { return detail::beats(v, a) ? v : a; }
  __device__ Acc operator()(Acc a, Acc b) const { return detail::beats(b, a) ? b : a; }
  __device__ static Out finish(Acc a, Index) { return a; }
};

struct Best {
  float value;
  int index;
};
struct ArgmaxReducer {
  using Acc = Best;
  using Out = std::int32_t;
  // INT_MAX loses every tie, so the identity never survives once one element is seen (n > 0).
  __device__ static Acc identity() { return {-INFINITY, INT_MAX}; }
  // The larger value (the first NaN beats any number); on a tie the smaller index, which makes
  // the result the first maximum whatever order the partials meet in.
  __device__ static Acc better(Acc a, Acc b) {
    if (detail::beats(b.value, a.value)) return b;
    if (detail::beats(a.value, b.value)) return a;
    return b.index < a.index ? b : a;
  }
  __device__ static Acc add(Acc a, float v, Index j) { return better(a, {v, static_cast<int>(j)}); }
  __device__ Acc operator()(Acc a, Acc b) const { return better(a, b); }
  __device__ static Out finish(Acc a, Index) { return a.index; }
};

// inner == 1: each row of n contiguous floats is reduced by a group of kGroup threads (a warp
// for short rows, the whole block for long ones); kThreads / kGroup rows per block.
template <typename R, int kGroup>
__global__ void reduce_rows_kernel(Index rows, Index n, const float* x, typename R::Out* out) {
  using Acc = typename R::Acc;
  __shared__ Acc scratch[kThreads / kWarp];
  constexpr int kRowsPerBlock = kThreads / kGroup;
  const int lane = threadIdx.x % kGroup, slot = threadIdx.x / kGroup;
  // The row loop is uniform over the block, as group_reduce's barriers need.
  for (Index first = static_cast<Index>(blockIdx.x) * kRowsPerBlock; first < rows;
       first += static_cast<Index>(gridDim.x) * kRowsPerBlock) {
    const Index row = first + slot;
    Acc acc = R::identity();
    if (row < rows)
      for (Index j = lane; j < n; j += kGroup) acc = R::add(acc, x[row * n + j], j);
    acc = detail::group_reduce<kGroup>(acc, R(), scratch);
    if (row < rows && lane == 0) out[row] = R::finish(acc, n);
  }
}

// inner > 1: a (tx, ty) block covers tx consecutive positions of inner (coalesced reads) of one
// outer slice; its ty thread rows split n, and their partials combine pairwise in shared memory.
template <typename R>
__global__ void reduce_columns_kernel(Index outer, Index n, Index inner, const float* x,
                                      typename R::Out* out) {
  using Acc = typename R::Acc;
  __shared__ Acc partial[kThreads];
  const unsigned int tx = threadIdx.x, ty = threadIdx.y, width = blockDim.x;
  const Index i = static_cast<Index>(blockIdx.x) * width + tx;
  for (Index o = blockIdx.y; o < outer; o += gridDim.y) {
    Acc acc = R::identity();
    if (i < inner)
      for (Index j = ty; j < n; j += blockDim.y) acc = R::add(acc, x[(o * n + j) * inner + i], j);
    partial[ty * width + tx] = acc;
    __syncthreads();
    for (unsigned int half = blockDim.y / 2; half > 0; half /= 2) {
      if (ty < half)
        partial[ty * width + tx] = R()(partial[ty * width + tx], partial[(ty + half) * width + tx]);
      __syncthreads();
    }
    if (ty == 0 && i < inner) out[o * inner + i] = R::finish(partial[tx], n);
    __syncthreads();  // partial is rewritten by the next slice
  }
}

template <typename R>
void launch_reduce(Index outer, Index n, Index inner, const float* x, typename R::Out* out,
                   cudaStream_t stream) {
  if (outer == 0 || inner == 0) return;  // n > 0 here: the dispatcher rejects empty reductions
  if (inner == 1) {
    if (n <= 1024) {
      reduce_rows_kernel<R, kWarp>
          <<<detail::blocks_for(outer, kThreads / kWarp), kThreads, 0, stream>>>(outer, n, x, out);
    } else {
      reduce_rows_kernel<R, kThreads>
          <<<detail::blocks_for(outer, 1), kThreads, 0, stream>>>(outer, n, x, out);
    }
  } else {
    const detail::ColumnTile tile = detail::column_tile(inner);
    const dim3 grid(static_cast<unsigned int>((inner + tile.tx - 1) / tile.tx),
                    static_cast<unsigned int>(outer < 65535 ? outer : 65535));
    reduce_columns_kernel<R><<<grid, dim3(tile.tx, tile.ty), 0, stream>>>(outer, n, inner, x, out);
  }
  KILN_CUDA_CHECK_LAUNCH();
}

// Sum of squares, in two passes: each block sums a grid-strided share in double; one block then
// sums the block partials in order. A single block (small n) writes the result directly.
__global__ void sum_squares_kernel(Index n, const float* x, double* partial, float* out) {
  __shared__ double scratch[kThreads / kWarp];
  double acc = 0.0;
  for (Index i = detail::grid_start(); i < n; i += detail::grid_stride()) {
    const double v = x[i];
    acc += v * v;
  }
  acc = detail::group_reduce<kThreads>(acc, detail::Add(), scratch);
  if (threadIdx.x == 0) {
    if (out != nullptr)
      out[0] = static_cast<float>(acc);
    else
      partial[blockIdx.x] = acc;
  }
}

__global__ void sum_partials_kernel(int count, const double* partial, float* out) {
  __shared__ double scratch[kThreads / kWarp];
  double acc = 0.0;
  for (int i = threadIdx.x; i < count; i += kThreads) acc += partial[i];
  acc = detail::group_reduce<kThreads>(acc, detail::Add(), scratch);
  if (threadIdx.x == 0) out[0] = static_cast<float>(acc);
}

}  // namespace

// The kernels take (outer, n, inner, x, out) rather than a record: one template serves reduce
// (float out) and argmax (int32 out), whose records differ.
void reduce(const rec::Reduce& o, cudaStream_t stream) {
  switch (o.f) {
    case ReduceOp::sum:
      return launch_reduce<SumReducer<false>>(o.outer, o.n, o.inner, o.x, o.out, stream);
    case ReduceOp::mean:
      return launch_reduce<SumReducer<true>>(o.outer, o.n, o.inner, o.x, o.out, stream);
    case ReduceOp::max: return launch_reduce<MaxReducer>(o.outer, o.n, o.inner, o.x, o.out, stream);
  }
}

void argmax(const rec::Argmax& o, cudaStream_t stream) {
  launch_reduce<ArgmaxReducer>(o.outer, o.n, o.inner, o.x, o.out, stream);
}

void sum_squares(const rec::SumSquares& o, cudaStream_t stream) {
  const Index n = o.n;
  const float* x = o.x;
  float* out = o.out;
  if (n == 0) {  // the empty sum is 0; a memset, not a launch
    KILN_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
    return;
  }
  // About 8192 elements per block (32 per thread), at most 1024 blocks: the block count, and
  // so the summation order, depends on n only.
  constexpr Index kPerBlock = 8192, kMaxPartials = 1024;
  const Index blocks = std::min<Index>((n + kPerBlock - 1) / kPerBlock, kMaxPartials);
  if (blocks == 1) {
    sum_squares_kernel<<<1, kThreads, 0, stream>>>(n, x, nullptr, out);
    KILN_CUDA_CHECK_LAUNCH();
    return;
  }
  StreamScratch scratch(static_cast<std::size_t>(blocks) * sizeof(double), stream);
  auto* partial = static_cast<double*>(scratch.get());
  sum_squares_kernel<<<static_cast<unsigned int>(blocks), kThreads, 0, stream>>>(n, x, partial,
                                                                                 nullptr);
  KILN_CUDA_CHECK_LAUNCH();
  sum_partials_kernel<<<1, kThreads, 0, stream>>>(static_cast<int>(blocks), partial, out);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
