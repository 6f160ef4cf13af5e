// causal_attention's records, filled by check() (core/ops/causal_attention.cpp) and taken by the
// CPU body (core/cpu/causal_attention.cpp) and the CUDA ones (core/cuda/causal_attention.cu, and
// cuDNN's in core/cuda/cudnn_attention.cpp): n heads of t positions, d features each; q, k, v, y
// and their gradients (n, t, d) row-major, lse (n, t).
#pragma once

#include "kiln/core/op_record.h"

namespace kiln::rec {

struct CausalAttentionForward {
  Index n, t, d;
  const float* q;
  const float* k;
  const float* v;
  float scale;
  float* y;    // "="
  float* lse;  // "=": each row's log of the sum of exp(scale q kᵀ) over its positions
};

struct CausalAttentionBackward {
  Index n, t, d;
  const float* q;
  const float* k;
  const float* v;
  const float* y;
  const float* lse;
  const float* dy;
  float scale;
  float* dq;  // "=", each of the three
  float* dk;
  float* dv;
};

}  // namespace kiln::rec

namespace kiln::cuda {
// kiln's own kernels, in fp32 at every precision.
void causal_attention_forward(const rec::CausalAttentionForward& o, cudaStream_t stream);
void causal_attention_backward(const rec::CausalAttentionBackward& o, cudaStream_t stream);
}  // namespace kiln::cuda
