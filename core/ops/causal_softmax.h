// causal_softmax: attention's fused scale, causal mask and softmax over the last axis of square
// (T, T) score matrices, and its backward (checks in core/ops/causal_softmax.cpp; kernels in
// core/cpu/causal_softmax.cpp and core/cuda/causal_softmax.cpp).
#pragma once

#include "kiln/core/ops/causal_softmax_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// x, y: (..., T, T) -> y[..., i, j] = softmax over j <= i of scale * x[..., i, j], and exactly 0
// for j > i (a query attends to its own and earlier positions only). y may alias x.
void causal_softmax_forward(const Tensor& x, Tensor& y, float scale);
// y from the forward, dy, dx: y's shape -> dx = scale * y * (dy - sum_j dy * y) per row ("="),
// 0 above the diagonal. dx may alias dy.
void causal_softmax_backward(const Tensor& y, const Tensor& dy, Tensor& dx, float scale);

namespace op {

// check() fills the record: rows (every (i) row of every matrix) and t.
struct CausalSoftmaxForward {
  static constexpr const char* kName = "causal_softmax_forward";
  const Tensor& x;
  Tensor& y;
  float scale;
  rec::CausalSoftmaxForward record{};
  void check();
  Device device() const { return x.device(); }
};

struct CausalSoftmaxBackward {
  static constexpr const char* kName = "causal_softmax_backward";
  const Tensor& y;
  const Tensor& dy;
  Tensor& dx;
  float scale;
  rec::CausalSoftmaxBackward record{};
  void check();
  Device device() const { return y.device(); }
};

}  // namespace op
}  // namespace kiln
