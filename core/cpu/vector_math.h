// Vectorised float math for the CPU kernels, over Eigen's packet functions (AVX2 or AVX-512 as
// the build targets the machine, core/CMakeLists.txt). A libm call per element keeps a loop
// scalar; Eigen's exp is a polynomial evaluated 8 or 16 lanes at a time, within a few ulp of
// libm's, +inf for +inf and NaN for NaN.
#pragma once

#include <Eigen/Core>

#include "kiln/core/cpu/backend.h"

namespace kiln::cpu {

using FloatArray = Eigen::Map<Eigen::ArrayXf>;
using ConstFloatArray = Eigen::Map<const Eigen::ArrayXf>;

inline ConstFloatArray array_of(const float* p, Index n) { return ConstFloatArray(p, n); }
inline FloatArray array_of(float* p, Index n) { return FloatArray(p, n); }

// Eigen clamps exp's argument at -88.72, so that its smallest result is about 3e-39, where
// libm's goes on into subnormals and reaches 0. exp_into flushes every result below FLT_MIN
// (an argument below -87.3) to exactly 0, so exp(-inf) stays 0 (a masked softmax column).
// (Not Eigen's select(): it has no vectorised path, and its exp would run one libm call at a
// time again.)
inline constexpr float kSmallestNormal = 1.17549435e-38f;

// y[i] = exp(x[i]) for n floats; y may be x.
inline void exp_into(Index n, const float* x, float* y) {
  array_of(y, n) = array_of(x, n).exp();
  for (Index i = 0; i < n; ++i) y[i] = y[i] < kSmallestNormal ? 0.0f : y[i];
}

}  // namespace kiln::cpu
