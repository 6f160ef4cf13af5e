// The CUDA backend: the same functions as core/cpu/kernels.h, with the stream to queue on last.
// Pointers are device pointers. Bodies live in core/cuda/<stem>.cu (cuBLAS for GEMM). Every
// launch is checked. Nothing here synchronises the host.
#pragma once

#include <cstdint>

#include "kiln/core/op_kinds.h"

typedef struct CUstream_st* cudaStream_t;  // as declared by the CUDA runtime

namespace kiln::cuda {

using Index = std::int64_t;

// gemm.cu — row-major c (m, n) = alpha * op(a) @ op(b) + beta * c, through cuBLAS.
void gemm(bool trans_a, bool trans_b, Index m, Index n, Index k, float alpha, const float* a,
          const float* b, float beta, float* c, cudaStream_t stream);

// bias.cu
void bias_add(Index rows, Index cols, const float* bias, float* y, cudaStream_t stream);
void bias_grad(Index rows, Index cols, const float* dy, float* dbias, cudaStream_t stream);

// activation.cu
void activation_forward(Activation f, Index n, const float* x, float* y, float alpha,
                        cudaStream_t stream);
void activation_backward(Activation f, Index n, const float* x, const float* y, const float* dy,
                         float* dx, float alpha, cudaStream_t stream);

// elementwise.cu
void binary(BinaryOp op, Index n, const float* a, const float* b, float* out, cudaStream_t stream);
void scale(Index n, float alpha, float* x, cudaStream_t stream);
void axpy(Index n, float alpha, const float* x, float* y, cudaStream_t stream);
void fill(Index n, float value, float* x, cudaStream_t stream);
void fill(Index n, std::int32_t value, std::int32_t* x, cudaStream_t stream);

// reduce.cu
void reduce(ReduceOp op, Index outer, Index n, Index inner, const float* x, float* out,
            cudaStream_t stream);
void argmax(Index outer, Index n, Index inner, const float* x, std::int32_t* out,
            cudaStream_t stream);
void sum_squares(Index n, const float* x, float* out, cudaStream_t stream);

// softmax.cu — an out-of-range label gives that row a NaN loss.
void softmax(Index rows, Index cols, const float* x, float* y, bool log, cudaStream_t stream);
void softmax_cross_entropy_forward(Index rows, Index cols, const float* logits,
                                   const std::int32_t* labels, float label_smoothing,
                                   float* probs, float* losses, cudaStream_t stream);
void softmax_cross_entropy_backward(Index rows, Index cols, const float* probs,
                                    const std::int32_t* labels, float grad_scale,
                                    float label_smoothing, float* dlogits, cudaStream_t stream);

// metrics.cu
void count_correct(Index rows, Index cols, const float* logits, const std::int32_t* labels,
                   float* correct, cudaStream_t stream);

// random.cu
void uniform(Index n, std::uint64_t seed, std::uint64_t offset, float low, float high, float* x,
             cudaStream_t stream);
void normal(Index n, std::uint64_t seed, std::uint64_t offset, float mean, float stddev, float* x,
            cudaStream_t stream);

}  // namespace kiln::cuda
