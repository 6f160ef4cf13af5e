// Launch shapes and warp/block reductions shared by the CUDA kernels (core/cuda/*.cu).
// Reductions here combine in a fixed order that depends only on the launch shape, never on
// scheduling, so a kernel built on them gives the same bits on every run.
#pragma once

#include <cstdint>
#include <cstring>

#include "kiln/core/cuda/check.h"

namespace kiln::cuda::detail {

using Index = std::int64_t;

constexpr int kThreads = 256;  // threads per block for every 1-D launch
constexpr int kWarp = 32;
// Grid-stride loops cover the rest; 4096 blocks of 256 is several waves on a 132-SM H200 and
// keeps the grid far below every launch limit whatever n is.
constexpr Index kMaxBlocks = 4096;

inline unsigned int blocks_for(Index n, Index per_block = kThreads) {
  const Index blocks = (n + per_block - 1) / per_block;
  return static_cast<unsigned int>(blocks < kMaxBlocks ? (blocks < 1 ? 1 : blocks) : kMaxBlocks);
}

// Queues kernel(o) over o.n elements (a grid-stride kernel taking its op's record); none if n == 0.
template <typename Record>
void launch_over_n(void (*kernel)(Record), const Record& o, cudaStream_t stream) {
  if (o.n == 0) return;
  kernel<<<blocks_for(o.n), kThreads, 0, stream>>>(o);
  KILN_CUDA_CHECK_LAUNCH();
}

// First index and stride of a 1-D grid-stride loop, in 64 bits (n may pass 2^31).
__device__ __forceinline__ Index grid_start() {
  return static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ Index grid_stride() {
  return static_cast<Index>(gridDim.x) * blockDim.x;
}

// __shfl_xor_sync / __shfl_sync for any trivially copyable T of whole 32-bit words (float,
// double, a (value, index) pair), one word at a time.
template <typename T> __device__ __forceinline__ T shuffle_xor(T v, int mask) {
  static_assert(sizeof(T) % 4 == 0, "shuffle works on whole 32-bit words");
  unsigned int words[sizeof(T) / 4];
  memcpy(words, &v, sizeof(T));
  for (unsigned int& w : words) w = __shfl_xor_sync(0xffffffffu, w, mask);
  memcpy(&v, words, sizeof(T));
  return v;
}
template <typename T> __device__ __forceinline__ T shuffle_from(T v, int lane) {
  unsigned int words[sizeof(T) / 4];
  memcpy(words, &v, sizeof(T));
  for (unsigned int& w : words) w = __shfl_sync(0xffffffffu, w, lane);
  memcpy(&v, words, sizeof(T));
  return v;
}

// Reduces v over a group of kGroup consecutive threads (a warp when kGroup == 32, the whole 1-D
// block of kGroup threads otherwise) and returns the result in every thread of the group. The
// butterfly leaves lanes with differently associated sums, so lane 0's is broadcast: every
// thread then uses the very same value. `scratch` holds kGroup / 32 values of T in shared
// memory; calls may follow one another (the leading barrier protects its reuse).
template <int kGroup, typename T, typename Op>
__device__ __forceinline__ T group_reduce(T v, Op op, T* scratch) {
  static_assert(kGroup == kWarp || (kGroup % kWarp == 0 && kGroup <= 1024));
  for (int mask = kWarp / 2; mask > 0; mask >>= 1) v = op(v, shuffle_xor(v, mask));
  v = shuffle_from(v, 0);
  if constexpr (kGroup > kWarp) {
    const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
    __syncthreads();
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = scratch[0];
    for (int w = 1; w < kGroup / kWarp; ++w) v = op(v, scratch[w]);
  }
  return v;
}

struct Add {
  template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};

// The running maximum as the CPU keeps it (core/cpu/reduce.cpp): larger wins, and the first NaN
// wins over any number, so a diverged tensor shows rather than hides.
__device__ __forceinline__ bool beats(float v, float m) { return v > m || (isnan(v) && !isnan(m)); }
struct Max {
  __device__ __forceinline__ float operator()(float a, float b) const {
    return beats(b, a) ? b : a;
  }
};

// Thread tile for reducing a (n, inner) slab along n when inner > 1: tx threads across inner
// read consecutive addresses (coalesced), ty = kThreads / tx threads split n. tx is the power of
// two covering inner, at most a warp, so a narrow slab still keeps the block busy along n.
struct ColumnTile {
  unsigned int tx, ty;
};
inline ColumnTile column_tile(Index inner) {
  unsigned int tx = 1;
  while (tx < kWarp && tx < inner) tx *= 2;
  return {tx, kThreads / tx};
}

}  // namespace kiln::cuda::detail
