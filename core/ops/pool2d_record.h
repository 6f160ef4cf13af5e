// The pooling ops' records, filled by check() (core/ops/pool2d.cpp) and taken by the CPU bodies
// (core/cpu/pool2d.cpp) and the CUDA launches (core/cuda/pool2d.cu): x, dx (n, c, h, w); y, dy
// and argmax (n, c, oh, ow), argmax the flat index ih * w + iw of each window's pick.
#pragma once

#include "kiln/core/op_record.h"
#include "kiln/core/window2d.h"

namespace kiln::rec {

struct MaxPool2dForward {
  Window2d g;
  const float* x;
  float* y;              // "="
  std::int32_t* argmax;  // "=" on the CPU; cuDNN leaves it untouched
};

struct MaxPool2dBackward {
  Window2d g;
  const float* x;
  const float* y;
  const std::int32_t* argmax;  // read by the CPU; cuDNN finds the maxima again from x and y
  const float* dy;
  float* dx;  // "="
};

struct AvgPool2dForward {
  Window2d g;
  const float* x;
  float* y;  // "="
};

struct AvgPool2dBackward {
  Window2d g;
  const float* x;
  const float* y;
  const float* dy;
  float* dx;  // "="
};

}  // namespace kiln::rec

namespace kiln::cuda {
// cuDNN pooling, queued on `stream`, checked, never synchronising the host.
void max_pool2d_forward(const rec::MaxPool2dForward& o, cudaStream_t stream);
void max_pool2d_backward(const rec::MaxPool2dBackward& o, cudaStream_t stream);
void avg_pool2d_forward(const rec::AvgPool2dForward& o, cudaStream_t stream);
void avg_pool2d_backward(const rec::AvgPool2dBackward& o, cudaStream_t stream);
}  // namespace kiln::cuda
