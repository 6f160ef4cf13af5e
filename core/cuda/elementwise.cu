// CUDA elementwise ops over n contiguous elements: binary a (op) b, scale, axpy and fill, with
// the CPU's formulas (core/cpu/elementwise.cpp; max/min as std::max/std::min, so NaN behaves
// the same). out may alias a or b: element i is read before it is written and nothing else is
// touched, so no pointer is __restrict__.
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/ops/elementwise_record.h"

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

template <BinaryOp Op> __global__ void binary_kernel(rec::Binary o) {
  for (Index i = detail::grid_start(); i < o.n; i += detail::grid_stride())
    o.out[i] = apply<Op>(o.a[i], o.b[i]);
}

__global__ void scale_kernel(rec::Scale o) {
  for (Index i = detail::grid_start(); i < o.n; i += detail::grid_stride()) o.x[i] *= o.alpha;
}

__global__ void axpy_kernel(rec::Axpy o) {
  for (Index i = detail::grid_start(); i < o.n; i += detail::grid_stride())
    o.y[i] += o.alpha * o.x[i];
}

template <typename T> __global__ void fill_kernel(Index n, T value, T* x) {
  for (Index i = detail::grid_start(); i < n; i += detail::grid_stride()) x[i] = value;
}

}  // namespace

// One instantiation per op, so the kernel carries no per-element switch.
void binary(const rec::Binary& o, cudaStream_t stream) {
  using B = BinaryOp;
  switch (o.f) {
    case B::add: return detail::launch_over_n(binary_kernel<B::add>, o, stream);
    case B::sub: return detail::launch_over_n(binary_kernel<B::sub>, o, stream);
    case B::mul: return detail::launch_over_n(binary_kernel<B::mul>, o, stream);
    case B::div: return detail::launch_over_n(binary_kernel<B::div>, o, stream);
    case B::max: return detail::launch_over_n(binary_kernel<B::max>, o, stream);
    case B::min: return detail::launch_over_n(binary_kernel<B::min>, o, stream);
  }
}

void scale(const rec::Scale& o, cudaStream_t stream) {
  detail::launch_over_n(scale_kernel, o, stream);
}

void axpy(const rec::Axpy& o, cudaStream_t stream) {
  detail::launch_over_n(axpy_kernel, o, stream);
}

// The fill kernel takes (n, value, x) rather than the record: one template for both dtypes.
void fill(const rec::Fill& o, cudaStream_t stream) {
  if (o.n == 0) return;
  const unsigned int blocks = detail::blocks_for(o.n);
  if (o.xi != nullptr) {
    fill_kernel<std::int32_t>
        <<<blocks, detail::kThreads, 0, stream>>>(o.n, static_cast<std::int32_t>(o.value), o.xi);
  } else {
    fill_kernel<float><<<blocks, detail::kThreads, 0, stream>>>(o.n, o.value, o.x);
  }
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
