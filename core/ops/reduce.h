// Reductions along one axis, argmax, and the sum of squares (checks in core/ops/reduce.cpp;
// kernels in core/cpu/reduce.cpp and core/cuda/reduce.cpp).
#pragma once

#include "kiln/core/ops/reduce_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// x: (..., n, ...) with n at `axis`; out: x's shape without that axis -> out = reduction.
void reduce(ReduceOp op, const Tensor& x, int axis, Tensor& out);
// x as above; out: int32, same shape as for reduce -> index of the first maximum.
void argmax(const Tensor& x, int axis, Tensor& out);
// x: any shape -> out: (1) = sum of squares (global L2 norm for gradient clipping).
void sum_squares(const Tensor& x, Tensor& out);

namespace op {

struct Reduce {
  static constexpr const char* kName = "reduce";
  ReduceOp f;
  const Tensor& x;
  int axis;
  Tensor& out;
  rec::Reduce record{};
  void check();
  Device device() const { return x.device(); }
};

struct Argmax {
  static constexpr const char* kName = "argmax";
  const Tensor& x;
  int axis;
  Tensor& out;
  rec::Argmax record{};
  void check();
  Device device() const { return x.device(); }
};

struct SumSquares {
  static constexpr const char* kName = "sum_squares";
  const Tensor& x;
  Tensor& out;
  rec::SumSquares record{};
  void check();
  Device device() const { return x.device(); }
};

}  // namespace op
}  // namespace kiln
