// The CPU backend: one function per op on raw, contiguous float32/int32 buffers, already checked
// by the dispatcher (core/<stem>.cpp). Bodies live in core/cpu/<stem>.cpp, on Eigen maps and
// OpenMP loops; they are the reference every CUDA kernel is tested against.
#pragma once

#include <cstdint>

#include "kiln/core/op_kinds.h"
#include "kiln/core/optimizer_math.h"
#include "kiln/core/window2d.h"

namespace kiln::cpu {

using Index = std::int64_t;

// gemm.cpp — c (m, n) = alpha * op(a) @ op(b) + beta * c, all row-major.
void gemm(bool trans_a, bool trans_b, Index m, Index n, Index k, float alpha, const float* a,
          const float* b, float beta, float* c);
// "OpenBLAS" or "Eigen": the reference path's GEMM in this build.
const char* reference_gemm_name();

// linear.cpp — y (n, out) = x (n, in) · w (out, in)ᵀ + bias (out, or null), ReLU'd when relu.
// w_bf16: the weight's bf16 copy (Parameter::bf16) or null.
void linear_forward(Index n, Index in, Index out, const float* x, const float* w,
                    const std::uint16_t* w_bf16, const float* bias, bool relu, float* y);
// dpre = dy · [y_relu > 0] (y_relu null: dpre = dy, the dpre buffer unused); dw (out, in) +=
// dpreᵀ x; dbias (or null) += column sums of dpre; dx (n, in, or null) = dpre w.
void linear_backward(Index n, Index in, Index out, const float* dy, const float* x, const float* w,
                     const std::uint16_t* w_bf16, const float* y_relu, float* dw, float* dbias, float* dx,
                     float* dpre);

// bias.cpp — y (rows, cols) += bias (cols); dbias (cols) += column sums of dy (rows, cols).
void bias_add(Index rows, Index cols, const float* bias, float* y);
void bias_grad(Index rows, Index cols, const float* dy, float* dbias);

// activation.cpp
void activation_forward(Activation f, Index n, const float* x, float* y, float alpha);
void activation_backward(Activation f, Index n, const float* x, const float* y, const float* dy,
                         float* dx, float alpha);

// elementwise.cpp
void binary(BinaryOp op, Index n, const float* a, const float* b, float* out);
void scale(Index n, float alpha, float* x);
void axpy(Index n, float alpha, const float* x, float* y);
void fill(Index n, float value, float* x);
void fill(Index n, std::int32_t value, std::int32_t* x);

// reduce.cpp — x viewed as (outer, n, inner), out as (outer, inner).
void reduce(ReduceOp op, Index outer, Index n, Index inner, const float* x, float* out);
void argmax(Index outer, Index n, Index inner, const float* x, std::int32_t* out);
void sum_squares(Index n, const float* x, float* out);  // out: one float

// softmax.cpp — rows of length cols.
void softmax(Index rows, Index cols, const float* x, float* y, bool log);
// Returns the first row whose label is outside [0, cols), or -1 when all are valid.
Index softmax_cross_entropy_forward(Index rows, Index cols, const float* logits,
                                    const std::int32_t* labels, float label_smoothing,
                                    float* probs, float* losses);
void softmax_cross_entropy_backward(Index rows, Index cols, const float* probs,
                                    const std::int32_t* labels, float grad_scale,
                                    float label_smoothing, float* dlogits);

// metrics.cpp — *correct += rows whose argmax equals the label.
void count_correct(Index rows, Index cols, const float* logits, const std::int32_t* labels,
                   std::int32_t* correct);

// conv2d.cpp — NCHW, im2col + gemm. bias and dbias may be null. y, dx "="; dw, dbias "+=".
void conv2d_forward(const Window2d& g, const float* x, const float* w, const float* bias, float* y);
void conv2d_backward_data(const Window2d& g, const float* dy, const float* w, float* dx);
void conv2d_backward_filter(const Window2d& g, const float* x, const float* dy, float* dw,
                            float* dbias);

// pool2d.cpp — argmax holds ih * W + iw of each window's first maximum; dx is overwritten.
void max_pool2d_forward(const Window2d& g, const float* x, float* y, std::int32_t* argmax);
void max_pool2d_backward(const Window2d& g, const std::int32_t* argmax, const float* dy, float* dx);
void avg_pool2d_forward(const Window2d& g, const float* x, float* y);
void avg_pool2d_backward(const Window2d& g, const float* dy, float* dx);

// batch_norm.cpp — x viewed as (n, c, l); statistics per channel over n * l elements.
void batch_norm_forward_train(Index n, Index c, Index l, const float* x, const float* gamma,
                              const float* beta, float momentum, float eps, float* running_mean,
                              float* running_var, float* y, float* save_mean, float* save_invstd);
void batch_norm_forward_eval(Index n, Index c, Index l, const float* x, const float* gamma,
                             const float* beta, const float* running_mean,
                             const float* running_var, float eps, float* y);
void batch_norm_backward(Index n, Index c, Index l, const float* x, const float* dy,
                         const float* gamma, const float* save_mean, const float* save_invstd,
                         float* dx, float* dgamma, float* dbeta);

// dropout.cpp — keep element i when to_unit(philox draw (seed, offset + i).x) >= p;
// mask = kept ? scale : 0, y = x * mask.
void dropout_forward(Index n, std::uint64_t seed, std::uint64_t offset, float p, float scale,
                     const float* x, float* y, float* mask);

// random.cpp — element i from Philox at (seed, offset + i).
void uniform(Index n, std::uint64_t seed, std::uint64_t offset, float low, float high, float* x);
void normal(Index n, std::uint64_t seed, std::uint64_t offset, float mean, float stddev, float* x);

// optimizer_ops.cpp — lists of `count` tensors: tensor t has sizes[t] elements at params[t],
// grads[t], ... (momentum_buffers is null when momentum == 0). Element formulas:
// core/optimizer_math.h.
// bf16_copies: null, or per tensor null or its bf16 copy, rewritten from each updated value.
void sgd_step(int count, const Index* sizes, float* const* params, const float* const* grads,
              float* const* momentum_buffers, const SgdConfig& config, bool first_step,
              std::uint16_t* const* bf16_copies);
void adam_step(int count, const Index* sizes, float* const* params, const float* const* grads,
               float* const* exp_avg, float* const* exp_avg_sq, const AdamConfig& config,
               const AdamScalars& scalars, std::uint16_t* const* bf16_copies);
void multi_sum_squares(int count, const Index* sizes, const float* const* xs, float* out);
void clip_by_global_norm(int count, const Index* sizes, float* const* xs, const float* norm_sq,
                         float max_norm, float* norm);
void clamp_(int count, const Index* sizes, float* const* xs, float lo, float hi);

}  // namespace kiln::cpu
