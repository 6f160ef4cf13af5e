// Reductions along one axis, argmax, and the sum of squares (checks in core/ops/reduce.cpp;
// kernels in core/cpu/reduce.cpp and core/cuda/reduce.cpp).
#pragma once

#include "kiln/core/op_kinds.h"
#include "kiln/core/tensor.h"

namespace kiln {

// x: (..., n, ...) with n at `axis`; out: x's shape without that axis -> out = reduction.
void reduce(ReduceOp op, const Tensor& x, int axis, Tensor& out);
// x as above; out: int32, same shape as for reduce -> index of the first maximum.
void argmax(const Tensor& x, int axis, Tensor& out);
// x: any shape -> out: (1) = sum of squares (global L2 norm for gradient clipping).
void sum_squares(const Tensor& x, Tensor& out);

namespace op {

// x viewed as (outer, n, inner) around the axis; out as (outer, inner). Set by check().
struct AxisSplit {
  std::int64_t outer = 0, n = 0, inner = 0;
};

struct Reduce {
  static constexpr const char* kName = "reduce";
  ReduceOp f;
  const Tensor& x;
  int axis;
  Tensor& out;
  AxisSplit split;
  void check();
  Device device() const { return x.device(); }
};

struct Argmax {
  static constexpr const char* kName = "argmax";
  const Tensor& x;
  int axis;
  Tensor& out;
  AxisSplit split;
  void check();
  Device device() const { return x.device(); }
};

struct SumSquares {
  static constexpr const char* kName = "sum_squares";
  const Tensor& x;
  Tensor& out;
  void check() const;
  Device device() const { return x.device(); }
};

}  // namespace op
}  // namespace kiln
