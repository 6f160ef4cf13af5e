// The GPU's matrix products beyond parity (tests/ops/ holds that): --precision tf32 and bf16
// really round (neither is exact fp32; bf16 rounds several times more than TF32), and a GEMM runs
// on the current stream a StreamGuard set.
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

float gemm_atol(std::int64_t k, float alpha) {
  return 1e-4f * std::sqrt(static_cast<float>(std::max<std::int64_t>(k, 1))) *
         std::max(1.0f, std::abs(alpha));
}

// --precision tf32 / bf16: the tensor cores round the inputs to 10- / 7-bit mantissas, which puts
// the product within about 1e-3 / 1e-2 of the CPU's relative to its scale. The checks that each
// mode really ran: neither is bit-equal to exact fp32, and bf16's worst error is several times
// TF32's (its unit roundoff is 8 times larger).
TEST(MatmulOnTheGpu, Tf32AndBf16AreCloseToTheCpuButNotExactFp32) {
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
  const float tf32_error = worst_error(tf32.to_vector<float>()),
              bf16_error = worst_error(bf16.to_vector<float>());
  EXPECT_GT(tf32_error, 0.0f) << "TF32 gave exact fp32 bits";
  // CUBLAS_COMPUTE_32F_FAST_16BF "allows down-converting inputs to bfloat16 or TF32": if cuBLAS
  // chose TF32 kernels, --precision bf16 is TF32 in fact, and this says so.
  EXPECT_NE(bf16.to_vector<float>(), tf32.to_vector<float>()) << "cuBLAS ran FAST_16BF as TF32";
  EXPECT_GT(bf16_error, 3.0f * tf32_error) << "bf16 rounded no more than TF32 did";
  EXPECT_EQ(matmul(on_gpu(a), on_gpu(b), false, true).to_vector<float>(), exact)
      << "back to fp32 after set_matmul_precision(fp32)";
}

TEST(MatmulOnTheGpu, RunsOnTheCurrentStreamSetByAGuard) {
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

}  // namespace
}  // namespace kiln
