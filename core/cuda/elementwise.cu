// CUDA elementwise ops over n contiguous elements: binary a (op) b, scale, axpy and fill, with
// the CPU's formulas (core/cpu/elementwise.cpp; max/min as std::max/std::min, so NaN behaves
// the same). out may alias a or b: element i is read before it is written and nothing else is
// touched, so no pointer is __restrict__.
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/elementwise.h"
#include "kiln/core/cuda/launch.cuh"

namespace kiln::cuda {

namespace {

template <BinaryOp Op> __device__ __forceinline__ float apply(float a, float b) {
  if constexpr (Op == BinaryOp::add) return a + b;
  if constexpr (Op == BinaryOp::sub) return a - b;
  if constexpr (Op == BinaryOp::mul) return a * b;
  if constexpr (Op == BinaryOp::div) return a / b;  // IEEE division: nvcc's -prec-div default
  if constexpr (Op == BinaryOp::max) return a < b ? b : a;  // std::max
  if constexpr (Op == BinaryOp::min) return b < a ? b : a;  // std::min
}

template <BinaryOp Op>
__global__ void binary_kernel(Index n, const float* a, const float* b, float* out) {
  for (Index i = detail::grid_start(); i < n; i += detail::grid_stride())
    out[i] = apply<Op>(a[i], b[i]);
}

template <BinaryOp Op>
void launch_binary(Index n, const float* a, const float* b, float* out, cudaStream_t stream) {
  binary_kernel<Op><<<detail::blocks_for(n), detail::kThreads, 0, stream>>>(n, a, b, out);
  KILN_CUDA_CHECK_LAUNCH();
}

__global__ void scale_kernel(Index n, float alpha, float* x) {
  for (Index i = detail::grid_start(); i < n; i += detail::grid_stride()) x[i] *= alpha;
}

__global__ void axpy_kernel(Index n, float alpha, const float* x, float* y) {
  for (Index i = detail::grid_start(); i < n; i += detail::grid_stride()) y[i] += alpha * x[i];
}

template <typename T> __global__ void fill_kernel(Index n, T value, T* x) {
  for (Index i = detail::grid_start(); i < n; i += detail::grid_stride()) x[i] = value;
}

}  // namespace

void binary(BinaryOp op, Index n, const float* a, const float* b, float* out, cudaStream_t stream) {
  if (n == 0) return;
  switch (op) {
    case BinaryOp::add: return launch_binary<BinaryOp::add>(n, a, b, out, stream);
    case BinaryOp::sub: return launch_binary<BinaryOp::sub>(n, a, b, out, stream);
    case BinaryOp::mul: return launch_binary<BinaryOp::mul>(n, a, b, out, stream);
    case BinaryOp::div: return launch_binary<BinaryOp::div>(n, a, b, out, stream);
    case BinaryOp::max: return launch_binary<BinaryOp::max>(n, a, b, out, stream);
    case BinaryOp::min: return launch_binary<BinaryOp::min>(n, a, b, out, stream);
  }
}

void scale(Index n, float alpha, float* x, cudaStream_t stream) {
  if (n == 0) return;
  scale_kernel<<<detail::blocks_for(n), detail::kThreads, 0, stream>>>(n, alpha, x);
  KILN_CUDA_CHECK_LAUNCH();
}

void axpy(Index n, float alpha, const float* x, float* y, cudaStream_t stream) {
  if (n == 0) return;
  axpy_kernel<<<detail::blocks_for(n), detail::kThreads, 0, stream>>>(n, alpha, x, y);
  KILN_CUDA_CHECK_LAUNCH();
}

void fill(Index n, float value, float* x, cudaStream_t stream) {
  if (n == 0) return;
  fill_kernel<float><<<detail::blocks_for(n), detail::kThreads, 0, stream>>>(n, value, x);
  KILN_CUDA_CHECK_LAUNCH();
}

void fill(Index n, std::int32_t value, std::int32_t* x, cudaStream_t stream) {
  if (n == 0) return;
  fill_kernel<std::int32_t><<<detail::blocks_for(n), detail::kThreads, 0, stream>>>(n, value, x);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
