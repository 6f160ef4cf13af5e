// CUDA multi-tensor optimizer ops, in the manner of PyTorch's multi_tensor_apply (apex): up to
// kMaxTensors tensors travel by value in one kernel-argument struct, and each block updates one
// chunk of one tensor with the element formulas of core/optimizer_math.h (the CPU runs the same).
// So an optimizer step is one launch per 64 tensors, allocates nothing and never waits on the
// host; the sum of squares is deterministic (fixed-order partials in double, no atomics).
#include "kiln/core/caching_allocator.h"
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/cuda/stream_scratch.cuh"
#include "kiln/core/ops/optimizer_ops_record.h"

namespace kiln::cuda {

namespace {

using detail::kThreads;
using detail::kWarp;

constexpr int kMaxTensors = 64;
// Elements per block: 64 per thread amortises the block's start, and a 100M-parameter model
// still gets ~6,000 blocks, many waves on a 132-SM H200.
constexpr Index kChunk = 16384;

// The block table of one launch: block b updates chunk b - first_block[t] of the tensor t with
// first_block[t] <= b < first_block[t + 1]. A prefix table has a fixed size whatever the block
// count, so one launch covers 64 tensors of any size and the whole struct stays under the
// classic 4 KB kernel-parameter limit. Empty tensors get no slot, so the table strictly rises.
struct Chunks {
  int count;
  Index size[kMaxTensors];
  Index first_block[kMaxTensors + 1];
};

struct Work {
  int tensor;
  Index begin, end;  // this block's element range within the tensor
};

// Binary search over at most 64 entries, the same for every thread of the block.
__device__ __forceinline__ Work locate(const Chunks& c) {
  const Index b = blockIdx.x;
  int lo = 0, hi = c.count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (c.first_block[mid] <= b)
      lo = mid;
    else
      hi = mid - 1;
  }
  const Index begin = (b - c.first_block[lo]) * kChunk;
  const Index end = begin + kChunk < c.size[lo] ? begin + kChunk : c.size[lo];
  return {lo, begin, end};
}

struct SgdArgs {
  Chunks chunks;
  float* param[kMaxTensors];
  const float* grad[kMaxTensors];
  float* buf[kMaxTensors];  // null when momentum == 0
};
struct AdamArgs {
  Chunks chunks;
  float* param[kMaxTensors];
  const float* grad[kMaxTensors];
  float* exp_avg[kMaxTensors];
  float* exp_avg_sq[kMaxTensors];
  bool decayed[kMaxTensors];  // false: this tensor's weight decay is 0
};
struct ReadArgs {
  Chunks chunks;
  const float* x[kMaxTensors];
};
struct WriteArgs {
  Chunks chunks;
  float* x[kMaxTensors];
};
static_assert(sizeof(AdamArgs) + sizeof(AdamConfig) + sizeof(AdamScalars) +
                      sizeof(StepRowsOnDevice) <=
                  4096,
              "kernel arguments must fit the 4 KB parameter space");

// Packs the non-empty tensors into launches of at most kMaxTensors: set(args, slot, t) stores
// tensor t's pointers in `slot`, launch(args, blocks, blocks_before) queues one kernel.
// Grids stay far below 2^31 blocks: 2^31 chunks would be 128 TB of floats.
template <typename A, typename Set, typename Launch>
void multi_tensor_apply(int count, const Index* sizes, Set set, Launch launch) {
  A args{};
  Index blocks = 0, blocks_before = 0;
  auto flush = [&] {
    if (args.chunks.count == 0) return;
    args.chunks.first_block[args.chunks.count] = blocks;
    launch(args, blocks, blocks_before);
    blocks_before += blocks;
    blocks = 0;
    args.chunks.count = 0;
  };
  for (int t = 0; t < count; ++t) {
    if (sizes[t] == 0) continue;
    const int slot = args.chunks.count++;
    args.chunks.size[slot] = sizes[t];
    args.chunks.first_block[slot] = blocks;
    set(args, slot, t);
    blocks += (sizes[t] + kChunk - 1) / kChunk;
    if (args.chunks.count == kMaxTensors) flush();
  }
  flush();
}

unsigned int grid(Index blocks) { return static_cast<unsigned int>(blocks); }

__global__ void __launch_bounds__(kThreads)
    sgd_kernel(const __grid_constant__ SgdArgs a, SgdConfig c, bool first_step,
               StepRowsOnDevice per_step) {
  if (per_step.rows != nullptr) c.lr = current_row(per_step)[0];
  const Work w = locate(a.chunks);
  float* p = a.param[w.tensor];
  const float* g = a.grad[w.tensor];
  float* buf = a.buf[w.tensor];
  for (Index i = w.begin + threadIdx.x; i < w.end; i += kThreads) {
    float b = (buf != nullptr && !first_step) ? buf[i] : 0.0f;  // first step: write only
    p[i] = sgd_update(c, first_step, p[i], g[i], b);
    if (buf != nullptr) buf[i] = b;
  }
}

__global__ void __launch_bounds__(kThreads)
    adam_kernel(const __grid_constant__ AdamArgs a, const AdamConfig c, AdamScalars s,
                StepRowsOnDevice per_step) {
  if (per_step.rows != nullptr) s = adam_scalars_from_row(current_row(per_step));
  const Work w = locate(a.chunks);
  float* p = a.param[w.tensor];
  const float* g = a.grad[w.tensor];
  float* m = a.exp_avg[w.tensor];
  float* v = a.exp_avg_sq[w.tensor];
  const AdamConfig ct = config_for_tensor(c, a.decayed[w.tensor]);
  for (Index i = w.begin + threadIdx.x; i < w.end; i += kThreads) {
    float mi = m[i], vi = v[i];
    p[i] = adam_update(ct, s, p[i], g[i], mi, vi);
    m[i] = mi;
    v[i] = vi;
  }
}

// One partial per block, in double, combined in a fixed tree order (launch.cuh).
__global__ void __launch_bounds__(kThreads)
    sum_squares_kernel(const __grid_constant__ ReadArgs a, double* partial) {
  __shared__ double scratch[kThreads / kWarp];
  const Work w = locate(a.chunks);
  const float* x = a.x[w.tensor];
  double acc = 0.0;
  for (Index i = w.begin + threadIdx.x; i < w.end; i += kThreads) {
    const double v = x[i];
    acc += v * v;
  }
  acc = detail::group_reduce<kThreads>(acc, detail::Add(), scratch);
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

__global__ void __launch_bounds__(kThreads)
    sum_partials_kernel(Index count, const double* partial, float* out) {
  __shared__ double scratch[kThreads / kWarp];
  double acc = 0.0;
  for (Index i = threadIdx.x; i < count; i += kThreads) acc += partial[i];
  acc = detail::group_reduce<kThreads>(acc, detail::Add(), scratch);
  if (threadIdx.x == 0) out[0] = static_cast<float>(acc);
}

// The factor is read on the device; at or under max_norm (factor 1) the block leaves the
// tensor untouched, as multiplying by 1 would.
__global__ void __launch_bounds__(kThreads)
    clip_kernel(const __grid_constant__ WriteArgs a, const float* norm_sq, float max_norm) {
  const float coef = clip_coefficient(norm_sq[0], max_norm);
  if (coef == 1.0f) return;
  const Work w = locate(a.chunks);
  float* x = a.x[w.tensor];
  for (Index i = w.begin + threadIdx.x; i < w.end; i += kThreads) x[i] *= coef;
}

// After every block of a recorded update has read its row.
__global__ void advance_cursor_kernel(std::int32_t* cursor) { *cursor += 1; }

void advance_cursor(const StepRowsOnDevice& per_step, cudaStream_t stream) {
  if (per_step.rows == nullptr) return;
  advance_cursor_kernel<<<1, 1, 0, stream>>>(per_step.cursor);
  KILN_CUDA_CHECK_LAUNCH();
}

__global__ void norm_kernel(const float* norm_sq, float* norm) { norm[0] = sqrtf(norm_sq[0]); }

__global__ void __launch_bounds__(kThreads)
    clamp_kernel(const __grid_constant__ WriteArgs a, float lo, float hi) {
  const Work w = locate(a.chunks);
  float* x = a.x[w.tensor];
  for (Index i = w.begin + threadIdx.x; i < w.end; i += kThreads) x[i] = clamp_value(x[i], lo, hi);
}

}  // namespace

void sgd_step(const rec::SgdStep& o, cudaStream_t stream) {
  multi_tensor_apply<SgdArgs>(
      o.count, o.sizes,
      [&](SgdArgs& a, int slot, int t) {
        a.param[slot] = o.params[t];
        a.grad[slot] = o.grads[t];
        a.buf[slot] = o.momentum_buffers != nullptr ? o.momentum_buffers[t] : nullptr;
      },
      [&](const SgdArgs& a, Index blocks, Index) {
        sgd_kernel<<<grid(blocks), kThreads, 0, stream>>>(a, o.config, o.first_step, o.per_step);
        KILN_CUDA_CHECK_LAUNCH();
      });
  advance_cursor(o.per_step, stream);
}

void adam_step(const rec::AdamStep& o, cudaStream_t stream) {
  multi_tensor_apply<AdamArgs>(
      o.count, o.sizes,
      [&](AdamArgs& a, int slot, int t) {
        a.param[slot] = o.params[t];
        a.grad[slot] = o.grads[t];
        a.exp_avg[slot] = o.exp_avg[t];
        a.exp_avg_sq[slot] = o.exp_avg_sq[t];
        a.decayed[slot] = o.decayed == nullptr || o.decayed[t] != 0;
      },
      [&](const AdamArgs& a, Index blocks, Index) {
        adam_kernel<<<grid(blocks), kThreads, 0, stream>>>(a, o.config, o.scalars, o.per_step);
        KILN_CUDA_CHECK_LAUNCH();
      });
  advance_cursor(o.per_step, stream);
}

void multi_sum_squares(const rec::MultiSumSquares& o, cudaStream_t stream) {
  const int count = o.count;
  const Index* sizes = o.sizes;
  float* out = o.out;
  Index total_blocks = 0;
  for (int t = 0; t < count; ++t) total_blocks += (sizes[t] + kChunk - 1) / kChunk;
  if (total_blocks == 0) {  // the empty sum is 0; a memset, not a launch
    KILN_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
    return;
  }
  // Partials of every launch side by side (launch k writes after the blocks of launches < k),
  // then one block sums them in index order: the result depends on the sizes alone.
  StreamScratch scratch(static_cast<std::size_t>(total_blocks) * sizeof(double), stream);
  auto* partial = static_cast<double*>(scratch.get());
  multi_tensor_apply<ReadArgs>(
      count, sizes, [&](ReadArgs& a, int slot, int t) { a.x[slot] = o.xs[t]; },
      [&](const ReadArgs& a, Index blocks, Index blocks_before) {
        sum_squares_kernel<<<grid(blocks), kThreads, 0, stream>>>(a, partial + blocks_before);
        KILN_CUDA_CHECK_LAUNCH();
      });
  sum_partials_kernel<<<1, kThreads, 0, stream>>>(total_blocks, partial, out);
  KILN_CUDA_CHECK_LAUNCH();
}

void clip_by_global_norm(const rec::ClipByGlobalNorm& o, cudaStream_t stream) {
  multi_tensor_apply<WriteArgs>(
      o.count, o.sizes, [&](WriteArgs& a, int slot, int t) { a.x[slot] = o.xs[t]; },
      [&](const WriteArgs& a, Index blocks, Index) {
        clip_kernel<<<grid(blocks), kThreads, 0, stream>>>(a, o.norm_sq, o.max_norm);
        KILN_CUDA_CHECK_LAUNCH();
      });
  // After the scaling launches, so `norm` may be `norm_sq` itself.
  if (o.norm != nullptr) {
    norm_kernel<<<1, 1, 0, stream>>>(o.norm_sq, o.norm);
    KILN_CUDA_CHECK_LAUNCH();
  }
}

void clamp_(const rec::Clamp& o, cudaStream_t stream) {
  multi_tensor_apply<WriteArgs>(
      o.count, o.sizes, [&](WriteArgs& a, int slot, int t) { a.x[slot] = o.xs[t]; },
      [&](const WriteArgs& a, Index blocks, Index) {
        clamp_kernel<<<grid(blocks), kThreads, 0, stream>>>(a, o.lo, o.hi);
        KILN_CUDA_CHECK_LAUNCH();
      });
}

}  // namespace kiln::cuda
