// Shared by the GPU parity suites (tests/gpu/*_parity_test.cpp): the device under test and the
// tolerances of DESIGN.md. Each suite runs an op on seeded CPU inputs and on their GPU copies and
// compares with testing::all_close, which prints the worst absolute and relative difference.
#pragma once

#include "kiln/core/device.h"
#include "kiln/core/tensor.h"
#include "tests/support/tensor_testing.h"

namespace kiln::testing {

inline constexpr Device kGpu = Device::cuda(0);

// Relative tolerances: elementwise work, and reductions/GEMM (sums whose order differs).
inline constexpr float kElementwiseRtol = 1e-5f;
inline constexpr float kReductionRtol = 1e-4f;

inline Tensor on_gpu(const Tensor& t) { return t.to(kGpu); }

}  // namespace kiln::testing
