// CUDA bias_add and bias_grad on a (rows, cols) matrix: y += bias on every row, and
// dbias += column sums of dy. The column sums run in double in a fixed tree order (no atomics),
// so they match the CPU's double sums closely and give the same bits on every run.
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/ops/bias_record.h"

namespace kiln::cuda {

namespace {

__global__ void bias_add_kernel(Index rows, Index cols, const float* bias, float* y) {
  const Index total = rows * cols;
  for (Index i = detail::grid_start(); i < total; i += detail::grid_stride())
    y[i] += bias[i % cols];
}

// Block (tx, ty) covers tx columns; its ty thread rows each sum a strided share of the rows,
// then the ty partial sums of a column are combined pairwise in shared memory (ty is a power of
// two). One thread per column writes dbias, so there is no race and no atomic.
__global__ void bias_grad_kernel(Index rows, Index cols, const float* dy, float* dbias) {
  __shared__ double partial[detail::kThreads];
  const unsigned int tx = threadIdx.x, ty = threadIdx.y, width = blockDim.x;
  const Index c = static_cast<Index>(blockIdx.x) * width + tx;
  double sum = 0.0;
  if (c < cols)
    for (Index r = ty; r < rows; r += blockDim.y) sum += dy[r * cols + c];
  partial[ty * width + tx] = sum;
  __syncthreads();
  for (unsigned int half = blockDim.y / 2; half > 0; half /= 2) {
    if (ty < half) partial[ty * width + tx] += partial[(ty + half) * width + tx];
    __syncthreads();
  }
  // "+=": gradients accumulate across calls (core/ops.h); rounded once, as on the CPU.
  if (ty == 0 && c < cols) dbias[c] = static_cast<float>(dbias[c] + partial[tx]);
}

}  // namespace

void bias_add(const rec::BiasAdd& o, cudaStream_t stream) {
  if (o.rows == 0 || o.cols == 0) return;
  bias_add_kernel<<<detail::blocks_for(o.rows * o.cols), detail::kThreads, 0, stream>>>(
      o.rows, o.cols, o.bias, o.y);
  KILN_CUDA_CHECK_LAUNCH();
}

void bias_grad(const rec::BiasGrad& o, cudaStream_t stream) {
  if (o.rows == 0 || o.cols == 0) return;
  const detail::ColumnTile tile = detail::column_tile(o.cols);
  const Index blocks = (o.cols + tile.tx - 1) / tile.tx;  // cols <= 2^31 * 32: within grid.x
  bias_grad_kernel<<<static_cast<unsigned int>(blocks), dim3(tile.tx, tile.ty), 0, stream>>>(
      o.rows, o.cols, o.dy, o.dbias);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
