// The public ops: every tensor operation, declared once in core/ops/<stem>.h with its shape
// comment and its op-table entry (core/op_table.h). Ops write into tensors the caller provides,
// so a training step allocates nothing; "=" overwrites, "+=" accumulates. All float ops are
// float32; labels and indices are int32. `kiln-ops` lists each op's kernels per backend.
#pragma once

#include "kiln/core/op_kinds.h"
#include "kiln/core/ops/activation.h"
#include "kiln/core/ops/batch_norm.h"
#include "kiln/core/ops/batched_gemm.h"
#include "kiln/core/ops/bf16_copy.h"
#include "kiln/core/ops/bias.h"
#include "kiln/core/ops/causal_attention.h"
#include "kiln/core/ops/causal_softmax.h"
#include "kiln/core/ops/conv2d.h"
#include "kiln/core/ops/dropout.h"
#include "kiln/core/ops/elementwise.h"
#include "kiln/core/ops/embedding.h"
#include "kiln/core/ops/gemm.h"
#include "kiln/core/ops/layer_norm.h"
#include "kiln/core/ops/linear.h"
#include "kiln/core/ops/metrics.h"
#include "kiln/core/ops/optimizer_ops.h"
#include "kiln/core/ops/permute.h"
#include "kiln/core/ops/pool2d.h"
#include "kiln/core/ops/reduce.h"
#include "kiln/core/ops/softmax.h"
#include "kiln/core/optimizer_math.h"
#include "kiln/core/stream.h"
#include "kiln/core/tensor.h"

namespace kiln {

// ---- copy.cpp (the device runtime: not an op-table entry)
// src, dst: same shape and dtype, any devices -> dst = src; returns when done.
void copy(const Tensor& src, Tensor& dst);
// As copy(), queued on `stream` (of the CUDA side). The host side must be pinned for the copy
// to overlap; pageable host memory works but is staged by the driver.
void copy_async(const Tensor& src, Tensor& dst, const Stream& stream);

}  // namespace kiln
