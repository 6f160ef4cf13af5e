// CUDA max and average pooling through cuDNN (NCHW, float). Max pooling uses
// CUDNN_POOLING_MAX_DETERMINISTIC and ignores padding (as the CPU and PyTorch do); its backward
// finds each window's maximum again from x and y, so it needs no argmax (with random inputs
// there are no ties; with ties cuDNN's pick may differ from the CPU's first maximum). Average
// pooling counts padding (count_include_pad): every window divides by kH·kW, as on the CPU.
#include <cudnn.h>

#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/cudnn_check.h"
#include "kiln/core/cuda/cudnn_runtime.h"
#include "kiln/core/ops/pool2d_record.h"

namespace kiln::cuda {

namespace {

const float kOne = 1.0f, kZero = 0.0f;

// The descriptors of one pooling call; a descriptor whose setup fails is still destroyed.
struct PoolDescriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnPoolingDescriptor_t pool = nullptr;

  PoolDescriptors(const Window2d& g, cudnnPoolingMode_t mode) {
    KILN_CUDNN_CHECK(cudnnCreateTensorDescriptor(&x));
    try {
      KILN_CUDNN_CHECK(cudnnCreateTensorDescriptor(&y));
      KILN_CUDNN_CHECK(cudnnCreatePoolingDescriptor(&pool));
      KILN_CUDNN_CHECK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                                  static_cast<int>(g.n), static_cast<int>(g.c),
                                                  static_cast<int>(g.h), static_cast<int>(g.w)));
      KILN_CUDNN_CHECK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                                  static_cast<int>(g.n), static_cast<int>(g.c),
                                                  static_cast<int>(g.oh), static_cast<int>(g.ow)));
      // PROPAGATE_NAN: a NaN in a window comes out, as the CPU's "NaN wins" maximum.
      KILN_CUDNN_CHECK(cudnnSetPooling2dDescriptor(pool, mode, CUDNN_PROPAGATE_NAN,
                                                   static_cast<int>(g.kh), static_cast<int>(g.kw),
                                                   static_cast<int>(g.ph), static_cast<int>(g.pw),
                                                   static_cast<int>(g.sh), static_cast<int>(g.sw)));
    } catch (...) {
      release();
      throw;
    }
  }
  ~PoolDescriptors() { release(); }
  PoolDescriptors(const PoolDescriptors&) = delete;
  PoolDescriptors& operator=(const PoolDescriptors&) = delete;

 private:
  void release() {
    if (pool != nullptr) cudnnDestroyPoolingDescriptor(pool);
    if (y != nullptr) cudnnDestroyTensorDescriptor(y);
    if (x != nullptr) cudnnDestroyTensorDescriptor(x);
  }
};

cudnnHandle_t handle_for(cudaStream_t stream) {
  int device = 0;
  KILN_CUDA_CHECK(cudaGetDevice(&device));
  return cudnn_handle(device, stream);
}

// y = pool(x) ("=", beta 0).
void forward(cudnnPoolingMode_t mode, const Window2d& g, const float* x, float* y,
             cudaStream_t stream) {
  if (g.n == 0 || g.c == 0) return;
  cudnnHandle_t h = handle_for(stream);
  const PoolDescriptors d(g, mode);
  KILN_CUDNN_CHECK(cudnnPoolingForward(h, d.pool, &kOne, d.x, x, &kZero, d.y, y));
}

// dx = dL/dx ("=", beta 0); dy has y's descriptor.
void backward(cudnnPoolingMode_t mode, const Window2d& g, const float* x, const float* y,
              const float* dy, float* dx, cudaStream_t stream) {
  if (g.n == 0 || g.c == 0) return;
  cudnnHandle_t h = handle_for(stream);
  const PoolDescriptors d(g, mode);
  KILN_CUDNN_CHECK(
      cudnnPoolingBackward(h, d.pool, &kOne, d.y, y, d.y, dy, d.x, x, &kZero, d.x, dx));
}

}  // namespace

void max_pool2d_forward(const rec::MaxPool2dForward& o, cudaStream_t stream) {
  forward(CUDNN_POOLING_MAX_DETERMINISTIC, o.g, o.x, o.y, stream);
}

void max_pool2d_backward(const rec::MaxPool2dBackward& o, cudaStream_t stream) {
  backward(CUDNN_POOLING_MAX_DETERMINISTIC, o.g, o.x, o.y, o.dy, o.dx, stream);
}

void avg_pool2d_forward(const rec::AvgPool2dForward& o, cudaStream_t stream) {
  forward(CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, o.g, o.x, o.y, stream);
}

void avg_pool2d_backward(const rec::AvgPool2dBackward& o, cudaStream_t stream) {
  backward(CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, o.g, o.x, o.y, o.dy, o.dx, stream);
}

}  // namespace kiln::cuda
