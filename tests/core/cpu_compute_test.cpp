// The CPU compute switch and bf16 on the CPU: oneDNN's bf16 products stay within bf16 rounding of
// its fp32 ones (and do round), bf16 rounding to nearest even keeps NaN and infinity, and the
// compute names parse. Op parity of oneDNN against the reference is the harness's
// (tests/ops/onednn_parity_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kiln/core/cpu/bf16.h"
#include "kiln/core/cpu_compute.h"
#include "kiln/core/ops.h"
#include "kiln/core/precision.h"
#include "tests/support/tensor_testing.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::random_tensor;

#define KILN_REQUIRE_ONEDNN()                                                                   \
  do {                                                                                          \
    if (!::kiln::onednn_built()) GTEST_SKIP() << "kiln was built without oneDNN (KILN_ONEDNN)"; \
  } while (0)

// Runs f with the CPU path `compute` and the matmul precision `precision`, then restores both.
template <typename F> void run_with(CpuCompute compute, MatmulPrecision precision, F&& f) {
  const CpuCompute old_compute = cpu_compute();
  const MatmulPrecision old_precision = matmul_precision();
  set_cpu_compute(compute);
  set_matmul_precision(precision);
  try {
    f();
  } catch (...) {
    set_cpu_compute(old_compute);
    set_matmul_precision(old_precision);
    throw;
  }
  set_cpu_compute(old_compute);
  set_matmul_precision(old_precision);
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(CpuCompute, OnednnBf16ProductsStayWithinBf16RoundingOfFp32) {
  KILN_REQUIRE_ONEDNN();
  const Tensor x = random_tensor(Shape{64, 784}, 21), w = random_tensor(Shape{300, 784}, 22);
  Tensor fp32 = Tensor::empty(Shape{64, 300}), bf16 = Tensor::empty(Shape{64, 300});
  run_with(CpuCompute::onednn, MatmulPrecision::fp32,
           [&] { linear_forward(x, w, Tensor(), fp32); });
  run_with(CpuCompute::onednn, MatmulPrecision::bf16,
           [&] { linear_forward(x, w, Tensor(), bf16); });
  // Each rounded input is within 2^-9 of its value, so each product within about 2^-8 of x·w:
  // |bf16 - fp32| <= 2^-8 · sum |x||w| (plus fp32 rounding of the sums) for every element.
  auto absolute = [](const Tensor& t) {
    std::vector<float> v = t.to_vector<float>();
    for (float& e : v) e = std::fabs(e);
    return Tensor::from_vector(v, t.shape());
  };
  Tensor bound = Tensor::empty(Shape{64, 300});
  run_with(CpuCompute::reference, MatmulPrecision::fp32,
           [&] { linear_forward(absolute(x), absolute(w), Tensor(), bound); });
  const std::vector<float> a = bf16.to_vector<float>(), e = fp32.to_vector<float>(),
                           b = bound.to_vector<float>();
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_LE(std::fabs(a[i] - e[i]), 0x1p-8f * b[i] + 1e-4f) << "element " << i;
  EXPECT_FALSE(all_close(bf16, fp32, 1e-6f, 1e-6f)) << "bf16 mode must round the inputs";
}

TEST(Bf16Rounding, RoundsToNearestEvenAndKeepsNaNAndInfinity) {
  EXPECT_EQ(cpu::round_to_bf16(1.0f), 1.0f);
  EXPECT_EQ(cpu::round_to_bf16(1.0f + 0x1p-8f), 1.0f);                      // a tie: to even
  EXPECT_EQ(cpu::round_to_bf16(1.0f + 0x1p-7f + 0x1p-8f), 1.0f + 0x1p-6f);  // a tie: to even
  EXPECT_EQ(cpu::round_to_bf16(1.0f + 0x1p-8f + 0x1p-12f), 1.0f + 0x1p-7f);
  EXPECT_EQ(cpu::round_to_bf16(-3.0f), -3.0f);
  EXPECT_TRUE(std::isnan(cpu::round_to_bf16(kNaN)));
  EXPECT_EQ(cpu::round_to_bf16(std::numeric_limits<float>::infinity()),
            std::numeric_limits<float>::infinity());
}

TEST(CpuCompute, ParsesItsNamesAndRefusesOthers) {
  EXPECT_EQ(parse_cpu_compute("onednn"), CpuCompute::onednn);
  EXPECT_EQ(parse_cpu_compute("reference"), CpuCompute::reference);
  EXPECT_THROW(parse_cpu_compute("mkl"), Error);
  if (!onednn_built()) EXPECT_THROW(set_cpu_compute(CpuCompute::onednn), Error);
}

}  // namespace
}  // namespace kiln
