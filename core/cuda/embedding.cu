// CUDA embedding. Forward: one thread per output element. Backward: the CPU reference's sums
// (core/cpu/embedding.cpp: dweight[row][c] += dy[i][c] for the ids in their order, one float
// rounding per add), so both give the same bits, in parallel over the distinct ids and columns.
// No atomics: the same bits on every run.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/cuda/stream_scratch.cuh"
#include "kiln/core/ops/embedding_record.h"

namespace kiln::cuda {

namespace {

using detail::kThreads;

// The row of id i of either record, or -1 when it is not an integer in [0, num).
template <typename Record> __device__ __forceinline__ Index row_of(const Record& o, Index i) {
  if (o.ids_i32) {
    const int v = static_cast<const int*>(o.ids)[i];
    return v >= 0 && v < o.num ? v : -1;
  }
  const float v = static_cast<const float*>(o.ids)[i];
  return v >= 0.0f && v < static_cast<float>(o.num) && v == floorf(v) ? static_cast<Index>(v) : -1;
}

__global__ void forward_kernel(rec::EmbeddingForward o) {
  const Index dim = o.dim;
  for (Index e = detail::grid_start(); e < o.count * dim; e += detail::grid_stride()) {
    const Index i = e / dim, c = e % dim;
    const Index row = row_of(o, i);
    o.y[e] = row >= 0 ? o.weight[row * dim + c] : nanf("");
  }
}

// Sort keys: each id's row, or num for an invalid id (sorted last, adding nothing); the values
// are the ids' positions, so that the stable sort keeps each row's ids in their order.
using Key = unsigned long long;
__global__ void keys_kernel(rec::EmbeddingBackward o, Key* keys, Index* positions) {
  for (Index i = detail::grid_start(); i < o.count; i += detail::grid_stride()) {
    const Index row = row_of(o, i);
    keys[i] = static_cast<Key>(row >= 0 ? row : o.num);
    positions[i] = i;
  }
}

constexpr int kRunsPerBlock = 8;  // one warp per run, a warp's lanes over 32 columns
__global__ void __launch_bounds__(detail::kWarp* kRunsPerBlock)
    accumulate_kernel(rec::EmbeddingBackward o, const Key* rows, const Index* starts,
                      const Index* lengths, const Index* run_count, const Index* positions) {
  const Index num = o.num, dim = o.dim;
  const float* dy = o.dy;
  float* dweight = o.dweight;
  const int lane = threadIdx.x;
  const Index c = static_cast<Index>(blockIdx.x) * detail::kWarp + lane;
  const Index runs = *run_count;
  // k, n and chunk are the same across the warp: its shuffles see every lane.
  for (Index k = static_cast<Index>(blockIdx.y) * kRunsPerBlock + threadIdx.y; k < runs;
       k += static_cast<Index>(gridDim.y) * kRunsPerBlock) {
    const auto row = static_cast<Index>(rows[k]);
    if (row == num) continue;
    const Index* run = positions + starts[k];
    const Index n = lengths[k];
    float acc = c < dim ? dweight[row * dim + c] : 0.0f;
    for (Index j0 = 0; j0 < n; j0 += detail::kWarp) {
      const int chunk = static_cast<int>(n - j0 < detail::kWarp ? n - j0 : detail::kWarp);
      const Index mine = lane < chunk ? run[j0 + lane] : 0;
      float v[detail::kWarp];
#pragma unroll
      for (int u = 0; u < detail::kWarp; ++u) {
        const Index i = detail::shuffle_from(mine, u);
        v[u] = u < chunk && c < dim ? dy[i * dim + c] : 0.0f;
      }
      // In the ids' order, and no padding added: -0.0f + 0.0f would be +0.0f.
#pragma unroll
      for (int u = 0; u < detail::kWarp; ++u)
        if (u < chunk) acc += v[u];
    }
    if (c < dim) dweight[row * dim + c] = acc;
  }
}

// A device buffer of n values of T from the stream's scratch: one allocation each, so that
// memcheck under the exact allocator (KILN_DEVICE_ALLOCATOR=exact) sees an overrun of any.
template <typename T> struct Scratch {
  StreamScratch block;
  Scratch(Index n, cudaStream_t stream) : block(static_cast<std::size_t>(n) * sizeof(T), stream) {}
  T* get() const { return static_cast<T*>(block.get()); }
};

}  // namespace

void embedding_forward(const rec::EmbeddingForward& o, cudaStream_t stream) {
  if (o.count * o.dim == 0) return;
  forward_kernel<<<detail::blocks_for(o.count * o.dim), kThreads, 0, stream>>>(o);
  KILN_CUDA_CHECK_LAUNCH();
}

// The positions are sorted by their row with a stable radix sort (cub::DeviceRadixSort: equal
// rows keep the ids' order), the runs of one row found (cub::DeviceRunLengthEncode), and one
// thread per (run, column) adds its run's rows of dy in that order. An id repeated n times is
// still a chain of n adds (a warp loads 32 rows of dy at a time ahead of them), so the time
// follows the most frequent id, not the number of ids.
void embedding_backward(const rec::EmbeddingBackward& o, cudaStream_t stream) {
  const Index count = o.count, num = o.num, dim = o.dim;
  if (count * dim == 0) return;
  const Index max_runs = std::min(count, num + 1);
  int end_bit = 1;  // the keys are in [0, num]: only their low bits are sorted
  while (end_bit < 64 && (static_cast<Key>(num) >> end_bit) != 0) ++end_bit;
  Scratch<Key> keys(count, stream), sorted_keys(count, stream), rows(max_runs, stream);
  Scratch<Index> positions(count, stream), sorted_positions(count, stream);
  Scratch<Index> lengths(max_runs, stream), starts(max_runs, stream), run_count(1, stream);
  keys_kernel<<<detail::blocks_for(count), kThreads, 0, stream>>>(o, keys.get(), positions.get());
  KILN_CUDA_CHECK_LAUNCH();
  // The lengths past the run count are read by the scan: zeros, not uninitialised memory.
  KILN_CUDA_CHECK(cudaMemsetAsync(lengths.get(), 0,
                                  static_cast<std::size_t>(max_runs) * sizeof(Index), stream));
  std::size_t sort_bytes = 0, encode_bytes = 0, scan_bytes = 0;
  KILN_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      nullptr, sort_bytes, keys.get(), sorted_keys.get(), positions.get(), sorted_positions.get(),
      count, 0, end_bit, stream));
  KILN_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(nullptr, encode_bytes, sorted_keys.get(),
                                                     rows.get(), lengths.get(), run_count.get(),
                                                     count, stream));
  KILN_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, lengths.get(), starts.get(),
                                                max_runs, stream));
  const std::size_t temp_bytes = std::max({sort_bytes, encode_bytes, scan_bytes, std::size_t{1}});
  const StreamScratch temp(temp_bytes, stream);
  std::size_t bytes = temp_bytes;
  KILN_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), bytes, keys.get(), sorted_keys.get(),
                                                  positions.get(), sorted_positions.get(), count, 0,
                                                  end_bit, stream));
  bytes = temp_bytes;
  KILN_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(temp.get(), bytes, sorted_keys.get(),
                                                     rows.get(), lengths.get(), run_count.get(),
                                                     count, stream));
  bytes = temp_bytes;
  KILN_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), bytes, lengths.get(), starts.get(),
                                                max_runs, stream));
  const Index column_blocks = (dim + detail::kWarp - 1) / detail::kWarp;
  const Index run_blocks = std::min<Index>((max_runs + kRunsPerBlock - 1) / kRunsPerBlock, 65535);
  accumulate_kernel<<<dim3(static_cast<unsigned int>(column_blocks),
                           static_cast<unsigned int>(run_blocks)),
                      dim3(detail::kWarp, kRunsPerBlock), 0, stream>>>(
      o, rows.get(), starts.get(), lengths.get(), run_count.get(), sorted_positions.get());
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
