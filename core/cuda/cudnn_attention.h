// cuDNN's fused flash attention behind causal_attention on the GPU under bf16 products: the
// operands rounded to bf16, cuDNN's graph of the scaled, causally masked softmax between two
// products (its log-sum-exp kept in fp32), the results widened back to fp32.
#pragma once

#include <cstdint>
#include <string>

#include "kiln/core/ops/causal_attention_record.h"

namespace kiln::cuda {

// Run the op on cuDNN and return true, or return false having queued nothing where cuDNN does not
// take it: a head size cuDNN refuses (cudnn_attention_takes_head_size), an lse not 16-byte aligned,
// an empty batch, a graph cuDNN's heuristics find no engine for (logged once per shape, with
// cuDNN's reason), or a shape first met inside a CUDA graph capture (a plan cannot be built there).
// Plans are built once per (handle, shape) and kept.
bool cudnn_causal_attention_forward(const rec::CausalAttentionForward& o, cudaStream_t stream);
bool cudnn_causal_attention_backward(const rec::CausalAttentionBackward& o, cudaStream_t stream);

// Why cuDNN declines n heads of t positions and d features (forward or backward) on the current
// device, or "" when it has a plan for them: for tests, which prove the fused path is the one run.
std::string cudnn_attention_refusal(std::int64_t n, std::int64_t t, std::int64_t d, bool backward);

}  // namespace kiln::cuda
