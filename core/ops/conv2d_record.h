// The conv2d ops' records, filled by check() (core/ops/conv2d.cpp) and taken by the CPU bodies
// (core/cpu/conv2d.cpp), oneDNN's (core/cpu/onednn/conv.cpp) and the CUDA launches
// (core/cuda/conv2d.cu, cuDNN): x, dx (n, c, h, w); w, dw (oc, c, kh, kw); bias, dbias (oc);
// y, dy (n, oc, oh, ow), all as the record's Window2d g says.
#pragma once

#include "kiln/core/op_record.h"
#include "kiln/core/window2d.h"

namespace kiln::rec {

struct Conv2dForward {
  Window2d g;
  const float* x;
  const float* w;
  const float* bias;  // or null
  float* y;           // "="
};

struct Conv2dBackwardData {
  Window2d g;
  const float* dy;
  const float* w;
  float* dx;  // "="
};

struct Conv2dBackwardFilter {
  Window2d g;
  const float* x;
  const float* dy;
  float* dw;     // "+="
  float* dbias;  // "+=", or null
};

}  // namespace kiln::rec

namespace kiln::cuda {
// cuDNN (deterministic fp32 algorithms, no TF32), queued on `stream`, checked, never
// synchronising the host. cuDNN indexes with ints: the registration checks the sizes first.
void conv2d_forward(const rec::Conv2dForward& o, cudaStream_t stream);
void conv2d_backward_data(const rec::Conv2dBackwardData& o, cudaStream_t stream);
void conv2d_backward_filter(const rec::Conv2dBackwardFilter& o, cudaStream_t stream);
}  // namespace kiln::cuda
