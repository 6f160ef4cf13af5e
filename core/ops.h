// The op list: every tensor operation, declared once. Each entry checks its operands (defined,
// dtype, shape, one device for all) and runs the CPU body (core/cpu/<stem>.cpp) or the CUDA body
// (core/cuda/<stem>.cu) on the tensors' device, on the current stream. Ops write into tensors
// the caller provides, so a training step allocates nothing; "=" overwrites, "+=" accumulates.
// All float ops are float32; labels and indices are int32.
#pragma once

#include <span>

#include "kiln/core/op_kinds.h"
#include "kiln/core/optimizer_math.h"
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

// ---- linear.cpp
// A Linear layer's forward with its bias and, when relu, the ReLU done in the GEMM itself:
// x: (N, in), weight: (out, in), bias: (out) or an undefined tensor for none, y: (N, out) ->
// y = x @ weightᵀ + bias, then max(y, 0) when relu. CPU: y starts as the bias rows and the GEMM
// accumulates into them (no zero fill, no bias pass), the ReLU runs in place. CUDA: one cuBLASLt
// matmul with the BIAS, RELU_BIAS or RELU epilogue, at the process's matmul precision.
// weight_bf16: undefined, or (CPU, --precision bf16) the weight's bf16 copy that the optimizer
// keeps (Parameter::bf16), which the product then reads instead of rounding the weight anew.
void linear_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor& y,
                    bool relu = false, const Tensor& weight_bf16 = Tensor());
// A Linear layer's backward. dy: (N, out); x: (N, in), the forward's input; weight: (out, in);
// y: (N, out), the forward's output when it was ReLU'd (undefined otherwise); dpre: (N, out),
// scratch for dpre = dy * [y > 0] (unused without y) -> dweight += dpreᵀ @ x, dbias (out, or
// undefined) += column sums of dpre, *dx (N, in; null to skip) = dpre @ weight. CPU: one pass
// makes dpre (in bf16 under --precision bf16) and the bias sums, then two oneDNN products.
void linear_backward(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& y,
                     Tensor& dweight, Tensor& dbias, Tensor* dx, Tensor& dpre,
                     const Tensor& weight_bf16 = Tensor());
// How many GPU linear_forward calls of this process found no cuBLASLt algorithm and ran as a
// GEMM and the bias and ReLU kernels instead (same result, no fusion); 0 without CUDA.
std::int64_t linear_forward_fallbacks();

// ---- bf16_copy.cpp
// x: float32 on the CPU, out: bf16 of x's shape on the CPU -> out = x rounded to nearest even
// (NaN stays NaN): a parameter's bf16 copy (Parameter::bf16), made once; the optimizer keeps it.
void write_bf16_copy(const Tensor& x, Tensor& out);
// Whether layers keep bf16 copies of their weights on `device`: --precision bf16 on a CPU with
// bf16 instructions, on the oneDNN path (elsewhere products round the fp32 weight themselves).
bool keeps_bf16_copies(Device device);

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
// logits: (N, C), labels: (N) int32, correct: (1) or () int32 -> correct += number of rows whose
// first maximum is at the label: exact, whatever the order of the GPU's atomic adds (a float
// count would round past 2^24). Stays on the device: no host synchronisation.
void count_correct(const Tensor& logits, const Tensor& labels, Tensor& correct);

// ---- conv2d.cpp (NCHW; dilation 1, groups 1)
struct Conv2dOptions {
  std::int64_t stride = 1;   // both axes
  std::int64_t padding = 0;  // zeros on every side
};
// x: (N, C, H, W), weight: (OC, C, kH, kW) -> (N, OC, OH, OW), OH = (H + 2 pad - kH) / stride + 1;
// throws naming the sizes when the channels differ or the padded input is smaller than kH x kW.
Shape conv2d_output_shape(const Shape& x, const Shape& weight, const Conv2dOptions& options);
// x, weight as above, bias: (OC) or an undefined tensor for none -> y = conv(x, weight) + bias.
void conv2d_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor& y,
                    const Conv2dOptions& options);
// dy: (N, OC, OH, OW), weight -> dx: (N, C, H, W) = dL/dx ("=": overwritten). dx's shape says
// which input size the forward had (several give the same output when stride > 1).
void conv2d_backward_data(const Tensor& dy, const Tensor& weight, Tensor& dx,
                          const Conv2dOptions& options);
// x, dy as above -> dweight: (OC, C, kH, kW) += dL/dweight, dbias: (OC) += dL/dbias (or an
// undefined tensor to skip it).
void conv2d_backward_filter(const Tensor& x, const Tensor& dy, Tensor& dweight, Tensor& dbias,
                            const Conv2dOptions& options);

// ---- pool2d.cpp (NCHW, per channel; floor mode, padding at most half the kernel, as PyTorch)
struct Pool2dOptions {
  std::int64_t kernel = 2;   // square window
  std::int64_t stride = 2;   // both axes
  std::int64_t padding = 0;  // max pooling never picks padding; average pooling counts it as 0
};
// x: (N, C, H, W) -> (N, C, OH, OW); throws when the padded input is smaller than the window.
Shape pool2d_output_shape(const Shape& x, const Pool2dOptions& options);
// x -> y: (N, C, OH, OW) = window maxima; argmax: int32, y's shape = flat index ih * W + iw of each
// window's first maximum (NaN wins). The CPU writes argmax and its backward routes by it; the
// CUDA body (cuDNN) finds the maxima again from x and y and leaves argmax untouched.
void max_pool2d_forward(const Tensor& x, Tensor& y, Tensor& argmax, const Pool2dOptions& options);
// x, y, argmax from the forward, dy: y's shape -> dx: x's shape ("="), each dy added to the input
// element its window picked.
void max_pool2d_backward(const Tensor& x, const Tensor& y, const Tensor& argmax, const Tensor& dy,
                         Tensor& dx, const Pool2dOptions& options);
// x -> y = window sums / kernel² (count_include_pad, PyTorch's default).
void avg_pool2d_forward(const Tensor& x, Tensor& y, const Pool2dOptions& options);
// x, y from the forward (cuDNN's backward takes them), dy -> dx ("=").
void avg_pool2d_backward(const Tensor& x, const Tensor& y, const Tensor& dy, Tensor& dx,
                         const Pool2dOptions& options);

// ---- batch_norm.cpp (per channel over the batch: x is (N, C) or (N, C, L), statistics over N·L)
// Training: y = (x - mean) * invstd * gamma + beta with the batch mean and biased variance;
// save_mean, save_invstd: (C) = mean, 1 / sqrt(var + eps) for backward; running_mean/var (C) =
// (1 - momentum) * running + momentum * batch statistic, the variance unbiased (as PyTorch).
// Needs N·L > 1.
void batch_norm_forward_train(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                              Tensor& running_mean, Tensor& running_var, Tensor& y,
                              Tensor& save_mean, Tensor& save_invstd, float momentum, float eps);
// Evaluation: y = (x - running_mean) / sqrt(running_var + eps) * gamma + beta.
void batch_norm_forward_eval(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                             const Tensor& running_mean, const Tensor& running_var, Tensor& y,
                             float eps);
// dy, x, gamma, save_mean, save_invstd from a training forward -> dx ("="), dgamma += , dbeta +=.
void batch_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                         const Tensor& save_mean, const Tensor& save_invstd, Tensor& dx,
                         Tensor& dgamma, Tensor& dbeta);

// ---- dropout.cpp
// x, y, mask: same shape; p in [0, 1] -> element i is kept when
// philox::to_unit(philox::draw(seed, offset + i).x) >= p, so both devices draw the same mask;
// mask = kept ? 1 / (1 - p) : 0 (all 0 when p == 1), y = x * mask.
void dropout_forward(const Tensor& x, Tensor& y, Tensor& mask, float p, std::uint64_t seed,
                     std::uint64_t offset);
// dy, mask, dx: same shape -> dx = dy * mask. dx may alias dy.
void dropout_backward(const Tensor& dy, const Tensor& mask, Tensor& dx);

// ---- copy.cpp
// src, dst: same shape and dtype, any devices -> dst = src; returns when done.
void copy(const Tensor& src, Tensor& dst);
// As copy(), queued on `stream` (of the CUDA side). The host side must be pinned for the copy
// to overlap; pageable host memory works but is staged by the driver.
void copy_async(const Tensor& src, Tensor& dst, const Stream& stream);

// ---- optimizer_ops.cpp
// Multi-tensor ops over lists of float32 tensors on one device (tensor i of each list has the
// shape of params[i] or tensors[i]). On a GPU each is one fused launch per 64 tensors (a block per
// chunk of one tensor): nothing is allocated per step and the host never waits. The per-element
// formulas, PyTorch's, are in core/optimizer_math.h.
// Per-step scalars kept beside the parameters, for an update recorded once into a CUDA graph and
// replayed (core/optimizer_math.h, StepRowsOnDevice): rows (n, width) float32, a row per update
// to come (width 1 for SGD: the learning rate; 5 for Adam: an AdamScalars), and cursor (1) int32,
// the row of the next update. An update given them reads row `cursor` in place of its learning
// rate (and step) argument and then adds 1 to the cursor, both on the parameters' device.
struct StepScalarRows {
  const Tensor* rows = nullptr;
  Tensor* cursor = nullptr;
};
// bf16_copies (CPU, --precision bf16): empty, or per parameter its bf16 copy (Parameter::bf16;
// undefined where it keeps none), rewritten from the updated value in the update's own pass.
// params, grads (, momentum_buffers: empty when momentum == 0) -> one torch.optim.SGD step. On
// the first step the buffers are only written (buf = g), so they may start uninitialised.
void sgd_step(std::span<Tensor* const> params, std::span<const Tensor* const> grads,
              std::span<Tensor* const> momentum_buffers, const SgdConfig& config, bool first_step,
              const StepScalarRows* per_step = nullptr, std::span<Tensor* const> bf16_copies = {});
// params, grads, exp_avg, exp_avg_sq -> one torch.optim.Adam / AdamW step; step counts from 1
// (the first update) for the bias corrections; the moments start at zero.
void adam_step(std::span<Tensor* const> params, std::span<const Tensor* const> grads,
               std::span<Tensor* const> exp_avg, std::span<Tensor* const> exp_avg_sq,
               const AdamConfig& config, std::int64_t step,
               const StepScalarRows* per_step = nullptr, std::span<Tensor* const> bf16_copies = {});
// tensors -> out: (1) = sum of squares of every element of every tensor, accumulated in double
// in an order fixed by the sizes alone (no atomics), so repeated calls give the same bits.
void multi_sum_squares(std::span<const Tensor* const> tensors, Tensor& out);
// tensors, norm_sq: (1) from multi_sum_squares -> every tensor *= min(1, max_norm / (sqrt(norm_sq)
// + 1e-6)), read on the device (no host sync); left untouched when the factor is 1. norm: (1),
// optional -> sqrt(norm_sq), written after the scaling, so it may be norm_sq itself.
void clip_by_global_norm(std::span<Tensor* const> tensors, const Tensor& norm_sq, float max_norm,
                         Tensor* norm = nullptr);
// tensors -> every element clamped to [lo, hi] (NaN stays NaN, as torch.clamp).
void clamp_(std::span<Tensor* const> tensors, float lo, float hi);
void clamp_(Tensor& x, float lo, float hi);

}  // namespace kiln
