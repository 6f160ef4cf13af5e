// GPU parity of kiln::gemm and kiln::matmul (cuBLAS) against the CPU (Eigen): every transpose
// combination at odd sizes with several alpha/beta, beta = 0 over NaN, an empty inner dimension,
// operands that are slices of device tensors, and a GEMM queued on a stream of its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kiln/core/ops.h"
#include "kiln/core/precision.h"
#include "kiln/core/stream.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kGpu;
using testing::kReductionRtol;
using testing::on_gpu;
using testing::random_tensor;

struct Dims {
  std::int64_t m, n, k;
};

// Entries of op(a) @ op(b) for inputs in [-1, 1) are of size ~sqrt(k) / 3, and both devices'
// rounding grows with k; the absolute floor is 1e-4 of that scale (with margin), so an entry
// that cancels to near zero does not fail on its relative error alone.
float gemm_atol(std::int64_t k, float alpha) {
  return 1e-4f * std::sqrt(static_cast<float>(std::max<std::int64_t>(k, 1))) *
         std::max(1.0f, std::abs(alpha));
}

TEST(GemmParity, MatchesCpuForEveryTransposeCombination) {
  KILN_REQUIRE_GPU();
  const Dims dims[] = {{1, 1, 1},     {7, 33, 1},    {33, 7, 1000},   {1, 1000, 7},
                       {1000, 33, 7}, {129, 65, 33}, {257, 300, 1000}};
  const float scalings[][2] = {{1.0f, 0.0f}, {0.5f, 1.0f}, {-2.0f, 0.25f}};
  std::uint32_t seed = 100;
  for (const Dims& d : dims)
    for (bool trans_a : {false, true})
      for (bool trans_b : {false, true})
        for (const auto& [alpha, beta] : scalings) {
          SCOPED_TRACE(::testing::Message()
                       << "m " << d.m << " n " << d.n << " k " << d.k << " trans_a " << trans_a
                       << " trans_b " << trans_b << " alpha " << alpha << " beta " << beta);
          const Tensor a = random_tensor(trans_a ? Shape{d.k, d.m} : Shape{d.m, d.k}, seed++);
          const Tensor b = random_tensor(trans_b ? Shape{d.n, d.k} : Shape{d.k, d.n}, seed++);
          const Tensor c = random_tensor(Shape{d.m, d.n}, seed++);
          Tensor expected = c.clone();
          gemm(a, trans_a, b, trans_b, expected, alpha, beta);
          Tensor actual = on_gpu(c);
          gemm(on_gpu(a), trans_a, on_gpu(b), trans_b, actual, alpha, beta);
          EXPECT_TRUE(all_close(actual, expected, kReductionRtol, gemm_atol(d.k, alpha)));
        }
}

TEST(GemmParity, BetaZeroOverwritesOutputEvenWhenItHoldsNaN) {
  KILN_REQUIRE_GPU();
  const Tensor a = random_tensor(Shape{7, 33}, 11), b = random_tensor(Shape{33, 5}, 12);
  Tensor expected = Tensor::zeros(Shape{7, 5});
  gemm(a, false, b, false, expected);
  Tensor actual = Tensor::full(Shape{7, 5}, std::numeric_limits<float>::quiet_NaN(), kGpu);
  gemm(on_gpu(a), false, on_gpu(b), false, actual, 1.0f, 0.0f);
  EXPECT_TRUE(all_close(actual, expected, kReductionRtol, gemm_atol(33, 1.0f)));
}

TEST(GemmParity, EmptyInnerDimensionGivesBetaTimesOutput) {
  KILN_REQUIRE_GPU();
  const Tensor a = Tensor::empty(Shape{7, 0}, DType::f32, kGpu);
  const Tensor b = Tensor::empty(Shape{0, 5}, DType::f32, kGpu);
  const Tensor c = random_tensor(Shape{7, 5}, 13);
  Tensor scaled = on_gpu(c);
  gemm(a, false, b, false, scaled, 1.0f, 0.5f);
  Tensor expected = c.clone();
  scale(expected, 0.5f);
  EXPECT_TRUE(all_close(scaled, expected, 0.0f, 0.0f));

  Tensor overwritten = Tensor::full(Shape{7, 5}, std::numeric_limits<float>::quiet_NaN(), kGpu);
  gemm(a, false, b, false, overwritten, 1.0f, 0.0f);
  EXPECT_TRUE(all_close(overwritten, Tensor::zeros(Shape{7, 5}), 0.0f, 0.0f));
}

TEST(GemmParity, MatmulMatchesCpu) {
  KILN_REQUIRE_GPU();
  const Tensor a = random_tensor(Shape{7, 33}, 21), b = random_tensor(Shape{33, 1000}, 22);
  const Tensor expected = matmul(a, b);
  const Tensor actual = matmul(on_gpu(a), on_gpu(b));
  ASSERT_EQ(actual.device(), kGpu);
  EXPECT_TRUE(all_close(actual, expected, kReductionRtol, gemm_atol(33, 1.0f)));

  const Tensor at = random_tensor(Shape{33, 7}, 23), bt = random_tensor(Shape{1000, 33}, 24);
  EXPECT_TRUE(all_close(matmul(on_gpu(at), on_gpu(bt), true, true), matmul(at, bt, true, true),
                        kReductionRtol, gemm_atol(33, 1.0f)));
}

// --precision tf32 / bf16: the tensor cores round the inputs to 10- / 7-bit mantissas, which puts
// the product within about 1e-3 / 1e-2 of the CPU's relative to its scale. The checks that each
// mode really ran: neither is bit-equal to exact fp32, and bf16's worst error is several times
// TF32's (its unit roundoff is 8 times larger).
TEST(GemmParity, Tf32AndBf16AreCloseToTheCpuButNotExactFp32) {
  KILN_REQUIRE_GPU();
  const std::int64_t m = 256, n = 512, k = 1024;
  const Tensor a = random_tensor(Shape{m, k}, 31), b = random_tensor(Shape{n, k}, 32);
  const Tensor expected = matmul(a, b, false, true);
  const std::vector<float> exact = matmul(on_gpu(a), on_gpu(b), false, true).to_vector<float>();
  auto product_in = [&](MatmulPrecision precision) {
    set_matmul_precision(precision);
    const Tensor product = matmul(on_gpu(a), on_gpu(b), false, true);
    set_matmul_precision(MatmulPrecision::fp32);
    return product;
  };
  auto worst_error = [&](const std::vector<float>& v) {
    float worst = 0.0f;
    for (std::size_t i = 0; i < v.size(); ++i) worst = std::max(worst, std::abs(v[i] - exact[i]));
    return worst;
  };
  const float scale = std::sqrt(static_cast<float>(k));
  const Tensor tf32 = product_in(MatmulPrecision::tf32), bf16 = product_in(MatmulPrecision::bf16);
  EXPECT_TRUE(all_close(tf32, expected, 1e-2f, 1e-2f * scale));
  EXPECT_TRUE(all_close(bf16, expected, 5e-2f, 5e-2f * scale));
  const float tf32_error = worst_error(tf32.to_vector<float>()), bf16_error = worst_error(bf16.to_vector<float>());
  EXPECT_GT(tf32_error, 0.0f) << "TF32 gave exact fp32 bits";
  // CUBLAS_COMPUTE_32F_FAST_16BF "allows down-converting inputs to bfloat16 or TF32": if cuBLAS
  // chose TF32 kernels, --precision bf16 is TF32 in fact, and this says so.
  EXPECT_NE(bf16.to_vector<float>(), tf32.to_vector<float>()) << "cuBLAS ran FAST_16BF as TF32";
  EXPECT_GT(bf16_error, 3.0f * tf32_error) << "bf16 rounded no more than TF32 did";
  EXPECT_EQ(matmul(on_gpu(a), on_gpu(b), false, true).to_vector<float>(), exact)
      << "back to fp32 after set_matmul_precision(fp32)";
}

TEST(GemmParity, OperandsMayBeSlicesOfDeviceTensors) {
  KILN_REQUIRE_GPU();
  // Rows [3, 10) of a (13, 33) matrix start 99 floats in: an offset pointer, not 256-aligned.
  const Tensor a = random_tensor(Shape{13, 33}, 31), b = random_tensor(Shape{40, 33}, 32);
  const Tensor a_rows = a.slice(3, 10), b_rows = b.slice(1, 34);
  Tensor expected = Tensor::zeros(Shape{7, 33});
  gemm(a_rows, false, b_rows, true, expected);
  Tensor out = Tensor::zeros(Shape{20, 33}, DType::f32, kGpu);
  Tensor out_rows = out.slice(5, 12);
  gemm(on_gpu(a).slice(3, 10), false, on_gpu(b).slice(1, 34), true, out_rows);
  EXPECT_TRUE(all_close(out_rows, expected, kReductionRtol, gemm_atol(33, 1.0f)));
  // Rows outside the slice are untouched.
  EXPECT_TRUE(all_close(out.slice(0, 5), Tensor::zeros(Shape{5, 33}), 0.0f, 0.0f));
  EXPECT_TRUE(all_close(out.slice(12, 20), Tensor::zeros(Shape{8, 33}), 0.0f, 0.0f));
}

TEST(GemmParity, RunsOnTheCurrentStreamSetByAGuard) {
  KILN_REQUIRE_GPU();
  const Tensor a = random_tensor(Shape{65, 129}, 41), b = random_tensor(Shape{129, 33}, 42);
  Tensor expected = Tensor::zeros(Shape{65, 33});
  gemm(a, false, b, false, expected);
  const Tensor a_gpu = on_gpu(a), b_gpu = on_gpu(b);
  // empty, not zeros: a fill queued on the default stream would race with the side stream.
  Tensor actual = Tensor::empty(Shape{65, 33}, DType::f32, kGpu);
  const Stream side = Stream::create(kGpu);
  {
    StreamGuard guard(side);
    gemm(a_gpu, false, b_gpu, false, actual);
    side.synchronize();
  }
  EXPECT_TRUE(all_close(actual, expected, kReductionRtol, gemm_atol(129, 1.0f)));
}

TEST(GemmParity, RepeatedRunsGiveTheSameBits) {
  KILN_REQUIRE_GPU();
  const Tensor a = on_gpu(random_tensor(Shape{257, 1000}, 51));
  const Tensor b = on_gpu(random_tensor(Shape{1000, 129}, 52));
  const Tensor first = matmul(a, b), second = matmul(a, b);
  EXPECT_EQ(first.to_vector<float>(), second.to_vector<float>());
}

}  // namespace
}  // namespace kiln
