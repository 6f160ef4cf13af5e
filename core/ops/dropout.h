// dropout forward and backward (checks in core/ops/dropout.cpp; kernels in core/cpu/dropout.cpp
// and core/cuda/dropout.cpp; the backward is a composite of binary on every device).
#pragma once

#include <cstdint>

#include "kiln/core/ops/dropout_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// x, y, mask: same shape; p in [0, 1] -> element i is kept when
// philox::to_unit(philox::draw(seed, offset + i).x) >= p, so both devices draw the same mask;
// mask = kept ? 1 / (1 - p) : 0 (all 0 when p == 1), y = x * mask.
void dropout_forward(const Tensor& x, Tensor& y, Tensor& mask, float p, std::uint64_t seed,
                     std::uint64_t offset);
// dy, mask, dx: same shape -> dx = dy * mask. dx may alias dy.
void dropout_backward(const Tensor& dy, const Tensor& mask, Tensor& dx);

namespace op {

// check() sets scale = 1 / (1 - p), computed once so both backends multiply by the same float.
struct DropoutForward {
  static constexpr const char* kName = "dropout_forward";
  const Tensor& x;
  Tensor& y;
  Tensor& mask;
  float p;
  std::uint64_t seed, offset;
  float scale = 0.0f;
  rec::DropoutForward record{};  // filled by check()
  void check();
  Device device() const { return x.device(); }
};

struct DropoutBackward {
  static constexpr const char* kName = "dropout_backward";
  const Tensor& dy;
  const Tensor& mask;
  Tensor& dx;
  void check() const;
  Device device() const { return dy.device(); }
  // The kernel of every device: dx = dy * mask through the binary op.
  static void as_binary(DropoutBackward& o);
};

}  // namespace op
}  // namespace kiln
