// The op list: every tensor operation, declared once. Each entry checks its operands (defined,
// dtype, shape, one device for all) and runs the CPU body (core/cpu/<stem>.cpp) or the CUDA body
// (core/cuda/<stem>.cu) on the tensors' device, on the current stream. Ops write into tensors
// the caller provides, so a training step allocates nothing; "=" overwrites, "+=" accumulates.
// All float ops are float32; labels and indices are int32.
#pragma once

#include "kiln/core/op_kinds.h"
#include "kiln/core/stream.h"
#include "kiln/core/tensor.h"

namespace kiln {

// ---- gemm.cpp
// out = alpha * op(a) @ op(b) + beta * out, op(t) = t or tᵀ.
// a: (M, K) or (K, M) if trans_a; b: (K, N) or (N, K) if trans_b; out: (M, N).
void gemm(const Tensor& a, bool trans_a, const Tensor& b, bool trans_b, Tensor& out,
          float alpha = 1.0f, float beta = 0.0f);
// Allocating convenience: returns op(a) @ op(b).
Tensor matmul(const Tensor& a, const Tensor& b, bool trans_a = false, bool trans_b = false);

// ---- bias.cpp
// y: (rows, C) viewed from any shape whose last axis is C, bias: (C) -> y += bias per row.
void bias_add(Tensor& y, const Tensor& bias);
// dy: (rows, C), dbias: (C) -> dbias += sum of dy over rows.
void bias_grad(const Tensor& dy, Tensor& dbias);

// ---- activation.cpp
// x, y: same shape -> y = f(x). alpha is LeakyReLU's negative slope.
void activation_forward(Activation f, const Tensor& x, Tensor& y, float alpha = 0.01f);
// x, y = f(x), dy, dx: same shape -> dx = dy * f'(x). dx may alias dy.
void activation_backward(Activation f, const Tensor& x, const Tensor& y, const Tensor& dy,
                         Tensor& dx, float alpha = 0.01f);

// ---- elementwise.cpp
// a, b, out: same shape -> out = a (op) b. out may alias a or b.
void binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out);
// x -> x *= alpha.
void scale(Tensor& x, float alpha);
// x, y: same shape -> y += alpha * x.
void axpy(float alpha, const Tensor& x, Tensor& y);
// x: float32 or int32 -> every element = value.
void fill(Tensor& x, float value);

// ---- reduce.cpp
// x: (..., n, ...) with n at `axis`; out: x's shape without that axis -> out = reduction.
void reduce(ReduceOp op, const Tensor& x, int axis, Tensor& out);
// x as above; out: int32, same shape as for reduce -> index of the first maximum.
void argmax(const Tensor& x, int axis, Tensor& out);
// x: any shape -> out: (1) = sum of squares (global L2 norm for gradient clipping).
void sum_squares(const Tensor& x, Tensor& out);

// ---- softmax.cpp (along the last axis; x viewed as (rows, C))
// x, y: same shape -> y = softmax(x) or log_softmax(x).
void softmax(const Tensor& x, Tensor& y);
void log_softmax(const Tensor& x, Tensor& y);
// Fused, numerically stable softmax cross-entropy with class-index labels and label smoothing
// eps (targets (1 - eps) on the label + eps / C everywhere).
// logits: (N, C), labels: (N) int32 in [0, C), probs: (N, C), losses: (N) -> probs = softmax,
// losses[i] = -sum_c target_ic * log probs_ic. On the CPU an out-of-range label throws naming
// the sample; on a GPU its loss is NaN (the host is not synchronised to check).
void softmax_cross_entropy_forward(const Tensor& logits, const Tensor& labels, Tensor& probs,
                                   Tensor& losses, float label_smoothing = 0.0f);
// probs, labels as above, dlogits: (N, C) -> dlogits = grad_scale * (probs - target).
// For a mean over the batch, grad_scale = 1 / N.
void softmax_cross_entropy_backward(const Tensor& probs, const Tensor& labels, Tensor& dlogits,
                                    float grad_scale, float label_smoothing = 0.0f);

// ---- metrics.cpp
// logits: (N, C), labels: (N) int32, correct: (1) or () float -> correct += number of rows whose
// first maximum is at the label. Stays on the device: no host synchronisation.
void count_correct(const Tensor& logits, const Tensor& labels, Tensor& correct);

// ---- copy.cpp
// src, dst: same shape and dtype, any devices -> dst = src; returns when done.
void copy(const Tensor& src, Tensor& dst);
// As copy(), queued on `stream` (of the CUDA side). The host side must be pinned for the copy
// to overlap; pageable host memory works but is staged by the driver.
void copy_async(const Tensor& src, Tensor& dst, const Stream& stream);

}  // namespace kiln
