// Elementwise ops: binary, scale, axpy and fill (core/ops/elementwise.cpp checks them; kernels in
// core/cpu/elementwise.cpp and core/cuda/elementwise.cpp).
#pragma once

#include "kiln/core/ops/elementwise_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// a, b, out: same shape -> out = a (op) b. out may alias a or b.
void binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out);
// x -> x *= alpha.
void scale(Tensor& x, float alpha);
// x, y: same shape -> y += alpha * x.
void axpy(float alpha, const Tensor& x, Tensor& y);
// x: float32 or int32 -> every element = value.
void fill(Tensor& x, float value);

namespace op {

struct Binary {
  static constexpr const char* kName = "binary";
  BinaryOp f;
  const Tensor& a;
  const Tensor& b;
  Tensor& out;
  rec::Binary record{};
  void check();
  Device device() const { return a.device(); }
};

struct Scale {
  static constexpr const char* kName = "scale";
  Tensor& x;
  float alpha;
  rec::Scale record{};
  void check();
  Device device() const { return x.device(); }
};

struct Axpy {
  static constexpr const char* kName = "axpy";
  float alpha;
  const Tensor& x;
  Tensor& y;
  rec::Axpy record{};
  void check();
  Device device() const { return x.device(); }
};

// x is float32 (value as is) or int32 (value must be an integer).
struct Fill {
  static constexpr const char* kName = "fill";
  Tensor& x;
  float value;
  rec::Fill record{};
  void check();
  Device device() const { return x.device(); }
};

}  // namespace op
}  // namespace kiln
