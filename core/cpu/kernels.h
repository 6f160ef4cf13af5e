// The CPU backend: one function per op on raw, contiguous float32/int32 buffers, already checked
// by the dispatcher (core/<stem>.cpp). Bodies live in core/cpu/<stem>.cpp, on Eigen maps and
// OpenMP loops; they are the reference every CUDA kernel is tested against.
#pragma once

#include <cstdint>

#include "kiln/core/op_kinds.h"

namespace kiln::cpu {

using Index = std::int64_t;

// gemm.cpp — c (m, n) = alpha * op(a) @ op(b) + beta * c, all row-major.
void gemm(bool trans_a, bool trans_b, Index m, Index n, Index k, float alpha, const float* a,
          const float* b, float beta, float* c);

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
                   float* correct);

// random.cpp — element i from Philox at (seed, offset + i).
void uniform(Index n, std::uint64_t seed, std::uint64_t offset, float low, float high, float* x);
void normal(Index n, std::uint64_t seed, std::uint64_t offset, float mean, float stddev, float* x);

}  // namespace kiln::cpu
