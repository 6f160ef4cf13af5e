// The CUDA backend: the same functions as core/cpu/kernels.h, with the stream to queue on last.
// Pointers are device pointers. Bodies live in core/cuda/<stem>.cu (cuBLAS for GEMM). Every
// launch is checked. Nothing here synchronises the host.
#pragma once

#include <cstdint>

#include "kiln/core/op_kinds.h"
#include "kiln/core/optimizer_math.h"
#include "kiln/core/window2d.h"

typedef struct CUstream_st* cudaStream_t;  // as declared by the CUDA runtime

namespace kiln::cuda {

using Index = std::int64_t;

// gemm.cu — row-major c (m, n) = alpha * op(a) @ op(b) + beta * c, through cuBLAS.
void gemm(bool trans_a, bool trans_b, Index m, Index n, Index k, float alpha, const float* a,
          const float* b, float beta, float* c, cudaStream_t stream);

// linear.cu — y (n, out) = x (n, in) · w (out, in)ᵀ + bias (out, or null), ReLU'd when relu,
// through cuBLASLt's epilogues.
void linear_forward(Index n, Index in, Index out, const float* x, const float* w, const float* bias,
                    bool relu, float* y, cudaStream_t stream);
// How many linear_forward calls of this process found no cuBLASLt algorithm and took the GEMM +
// bias + ReLU kernels instead (the GPU tests check that cuBLASLt served the usual shapes).
std::int64_t linear_forward_fallbacks();

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
                   std::int32_t* correct, cudaStream_t stream);

// conv2d.cu — cuDNN (deterministic fp32 algorithms, no TF32). Same contract as the CPU's.
void conv2d_forward(const Window2d& g, const float* x, const float* w, const float* bias, float* y,
                    cudaStream_t stream);
void conv2d_backward_data(const Window2d& g, const float* dy, const float* w, float* dx,
                          cudaStream_t stream);
void conv2d_backward_filter(const Window2d& g, const float* x, const float* dy, float* dw,
                            float* dbias, cudaStream_t stream);

// pool2d.cu — cuDNN pooling: its backward finds the maxima again from x and y (no argmax).
void max_pool2d_forward(const Window2d& g, const float* x, float* y, cudaStream_t stream);
void max_pool2d_backward(const Window2d& g, const float* x, const float* y, const float* dy,
                         float* dx, cudaStream_t stream);
void avg_pool2d_forward(const Window2d& g, const float* x, float* y, cudaStream_t stream);
void avg_pool2d_backward(const Window2d& g, const float* x, const float* y, const float* dy,
                         float* dx, cudaStream_t stream);

// batch_norm.cu
void batch_norm_forward_train(Index n, Index c, Index l, const float* x, const float* gamma,
                              const float* beta, float momentum, float eps, float* running_mean,
                              float* running_var, float* y, float* save_mean, float* save_invstd,
                              cudaStream_t stream);
void batch_norm_forward_eval(Index n, Index c, Index l, const float* x, const float* gamma,
                             const float* beta, const float* running_mean,
                             const float* running_var, float eps, float* y, cudaStream_t stream);
void batch_norm_backward(Index n, Index c, Index l, const float* x, const float* dy,
                         const float* gamma, const float* save_mean, const float* save_invstd,
                         float* dx, float* dgamma, float* dbeta, cudaStream_t stream);

// dropout.cu
void dropout_forward(Index n, std::uint64_t seed, std::uint64_t offset, float p, float scale,
                     const float* x, float* y, float* mask, cudaStream_t stream);

// random.cu
void uniform(Index n, std::uint64_t seed, std::uint64_t offset, float low, float high, float* x,
             cudaStream_t stream);
void normal(Index n, std::uint64_t seed, std::uint64_t offset, float mean, float stddev, float* x,
            cudaStream_t stream);

// optimizer_ops.cu — lists of `count` tensors: tensor t has sizes[t] elements at params[t],
// grads[t], ... (momentum_buffers is null when momentum == 0). Element formulas:
// core/optimizer_math.h. One launch per 64 tensors; norm_sq and norm are device pointers. With
// per_step.rows set, the learning rate (SGD) or the AdamScalars (Adam) come from the device row
// at the cursor instead of the arguments, and one more launch then advances the cursor.
void sgd_step(int count, const Index* sizes, float* const* params, const float* const* grads,
              float* const* momentum_buffers, const SgdConfig& config, bool first_step,
              const StepRowsOnDevice& per_step, cudaStream_t stream);
void adam_step(int count, const Index* sizes, float* const* params, const float* const* grads,
               float* const* exp_avg, float* const* exp_avg_sq, const AdamConfig& config,
               const AdamScalars& scalars, const StepRowsOnDevice& per_step, cudaStream_t stream);
void multi_sum_squares(int count, const Index* sizes, const float* const* xs, float* out,
                       cudaStream_t stream);
void clip_by_global_norm(int count, const Index* sizes, float* const* xs, const float* norm_sq,
                         float max_norm, float* norm, cudaStream_t stream);
void clamp_(int count, const Index* sizes, float* const* xs, float lo, float hi,
            cudaStream_t stream);

}  // namespace kiln::cuda
