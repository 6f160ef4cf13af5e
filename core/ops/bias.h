// bias_add and bias_grad over the last axis (checks in core/ops/bias.cpp; kernels in
// core/cpu/bias.cpp and core/cuda/bias.cpp).
#pragma once

#include "kiln/core/ops/bias_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// y: (rows, C) viewed from any shape whose last axis is C, bias: (C) -> y += bias per row.
void bias_add(Tensor& y, const Tensor& bias);
// dy: (rows, C), dbias: (C) -> dbias += sum of dy over rows.
void bias_grad(const Tensor& dy, Tensor& dbias);

namespace op {

// check() fills the record: y viewed as (rows, cols).
struct BiasAdd {
  static constexpr const char* kName = "bias_add";
  Tensor& y;
  const Tensor& bias;
  rec::BiasAdd record{};
  void check();
  Device device() const { return y.device(); }
};

struct BiasGrad {
  static constexpr const char* kName = "bias_grad";
  const Tensor& dy;
  Tensor& dbias;
  rec::BiasGrad record{};
  void check();
  Device device() const { return dy.device(); }
};

}  // namespace op
}  // namespace kiln
