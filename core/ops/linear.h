// A Linear layer's fused forward and backward (checks in core/ops/linear.cpp; kernels in
// core/cpu/linear.cpp, the oneDNN folder, and core/cuda/linear.cpp, whose backward is a
// composite of the gemm, bias_grad and activation_backward ops).
#pragma once

#include "kiln/core/ops/linear_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// A Linear layer's forward with its bias and, when relu, the ReLU done in the GEMM itself:
// x: (N, in), weight: (out, in), bias: (out) or an undefined tensor for none, y: (N, out) ->
// y = x @ weightᵀ + bias, then max(y, 0) when relu. CPU: y starts as the bias rows and the GEMM
// accumulates into them (no zero fill, no bias pass), the ReLU runs in place. CUDA: one cuBLASLt
// matmul with the BIAS, RELU_BIAS or RELU epilogue, at the process's matmul precision.
// weight_bf16: undefined, or (CPU, MatmulPrecision::bf16) the weight's bf16 copy that the optimizer
// keeps (Bf16Shadow), which the product then reads instead of rounding the weight anew.
void linear_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor& y,
                    bool relu = false, const Tensor& weight_bf16 = Tensor());
// A Linear layer's backward. dy: (N, out); x: (N, in), the forward's input; weight: (out, in);
// y: (N, out), the forward's output when it was ReLU'd (undefined otherwise); dpre: (N, out),
// scratch for dpre = dy * [y > 0] (unused without y) -> dweight += dpreᵀ @ x, dbias (out, or
// undefined) += column sums of dpre, *dx (N, in; null to skip) = dpre @ weight. CPU: one pass
// makes dpre (in bf16 under MatmulPrecision::bf16) and the bias sums, then two oneDNN products.
void linear_backward(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& y,
                     Tensor& dweight, Tensor& dbias, Tensor* dx, Tensor& dpre,
                     const Tensor& weight_bf16 = Tensor());
// How many GPU linear_forward calls of this process found no cuBLASLt algorithm and ran as a
// GEMM and the bias and ReLU kernels instead (same result, no fusion); 0 without CUDA.
std::int64_t linear_forward_fallbacks();

namespace op {

// check() fills the record: n, in, out, the pointers (null for an undefined tensor) and w_bf16
// (the bits of weight_bf16, or null).
struct LinearForward {
  static constexpr const char* kName = "linear_forward";
  const Tensor& x;
  const Tensor& weight;
  const Tensor& bias;
  Tensor& y;
  bool relu;
  const Tensor& weight_bf16;
  rec::LinearForward record{};
  void check();
  Device device() const { return x.device(); }
};

struct LinearBackward {
  static constexpr const char* kName = "linear_backward";
  const Tensor& dy;
  const Tensor& x;
  const Tensor& weight;
  const Tensor& y;
  Tensor& dweight;
  Tensor& dbias;
  Tensor* dx;
  Tensor& dpre;
  const Tensor& weight_bf16;
  rec::LinearBackward record{};
  void check();
  Device device() const { return dy.device(); }
};

}  // namespace op

namespace detail {
// Set by the CUDA backend when it registers: linear_forward_fallbacks() reads it.
extern std::int64_t (*linear_forward_fallback_count)();
}  // namespace detail

}  // namespace kiln
