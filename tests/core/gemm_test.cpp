// kiln::gemm and kiln::matmul on the CPU against a naive double-precision triple loop, for every
// transpose combination at odd sizes, and the shape and dtype errors naming their operands.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kiln/core/ops.h"
#include "tests/support/error_testing.h"
#include "tests/support/tensor_testing.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::random_tensor;

using testing::error_message;

// alpha * op(a) @ op(b) + beta * c, in double, from the stored (row-major) operands.
std::vector<float> naive_gemm(const Tensor& a, bool trans_a, const Tensor& b, bool trans_b,
                              const Tensor& c, float alpha, float beta) {
  const auto av = a.to_vector<float>(), bv = b.to_vector<float>(), cv = c.to_vector<float>();
  const std::int64_t m = c.size(0), n = c.size(1), k = trans_a ? a.size(0) : a.size(1);
  std::vector<float> out(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t p = 0; p < k; ++p) {
        const double x = trans_a ? av[p * m + i] : av[i * k + p];
        const double y = trans_b ? bv[j * k + p] : bv[p * n + j];
        sum += x * y;
      }
      const double prior = beta == 0.0f ? 0.0 : static_cast<double>(beta) * cv[i * n + j];
      out[i * n + j] = static_cast<float>(alpha * sum + prior);
    }
  return out;
}

struct Dims {
  std::int64_t m, n, k;
};

TEST(Gemm, MatchesNaiveLoopForEveryTransposeCombination) {
  const Dims dims[] = {{1, 1, 1}, {7, 33, 1}, {33, 7, 1000}, {1, 1000, 7}, {129, 65, 33}};
  const float scalings[][2] = {{1.0f, 0.0f}, {0.5f, 1.0f}, {-2.0f, 0.25f}};
  std::uint32_t seed = 1;
  for (const Dims& d : dims)
    for (bool trans_a : {false, true})
      for (bool trans_b : {false, true})
        for (const auto& [alpha, beta] : scalings) {
          SCOPED_TRACE(::testing::Message()
                       << "m " << d.m << " n " << d.n << " k " << d.k << " trans_a " << trans_a
                       << " trans_b " << trans_b << " alpha " << alpha << " beta " << beta);
          const Tensor a = random_tensor(trans_a ? Shape{d.k, d.m} : Shape{d.m, d.k}, seed++);
          const Tensor b = random_tensor(trans_b ? Shape{d.n, d.k} : Shape{d.k, d.n}, seed++);
          Tensor c = random_tensor(Shape{d.m, d.n}, seed++);
          const std::vector<float> expected = naive_gemm(a, trans_a, b, trans_b, c, alpha, beta);
          gemm(a, trans_a, b, trans_b, c, alpha, beta);
          EXPECT_TRUE(all_close(c.to_vector<float>(), expected, 1e-4f, 1e-4f));
        }
}

TEST(Gemm, BetaZeroOverwritesOutputEvenWhenItHoldsNaN) {
  const Tensor a = random_tensor(Shape{7, 33}, 11), b = random_tensor(Shape{33, 5}, 12);
  Tensor c = Tensor::full(Shape{7, 5}, std::numeric_limits<float>::quiet_NaN());
  const std::vector<float> expected = naive_gemm(a, false, b, false, c, 1.0f, 0.0f);
  gemm(a, false, b, false, c, 1.0f, 0.0f);
  EXPECT_TRUE(all_close(c.to_vector<float>(), expected, 1e-4f, 1e-5f));
}

TEST(Gemm, AlphaZeroScalesOutputByBetaOnly) {
  const Tensor a = random_tensor(Shape{7, 33}, 13), b = random_tensor(Shape{33, 5}, 14);
  Tensor c = random_tensor(Shape{7, 5}, 15);
  std::vector<float> expected = c.to_vector<float>();
  for (float& v : expected) v *= 0.5f;
  gemm(a, false, b, false, c, 0.0f, 0.5f);
  EXPECT_TRUE(all_close(c.to_vector<float>(), expected, 1e-6f, 0.0f));
}

TEST(Gemm, EmptyInnerDimensionGivesBetaTimesOutput) {
  const Tensor a = Tensor::empty(Shape{7, 0}), b = Tensor::empty(Shape{0, 5});
  Tensor c = Tensor::full(Shape{7, 5}, std::numeric_limits<float>::quiet_NaN());
  gemm(a, false, b, false, c);
  EXPECT_TRUE(all_close(c.to_vector<float>(), std::vector<float>(35, 0.0f), 0.0f, 0.0f));
}

TEST(Matmul, ReturnsProductOfTransposedOperands) {
  const Tensor a = random_tensor(Shape{33, 7}, 21), b = random_tensor(Shape{1000, 33}, 22);
  const Tensor out = matmul(a, b, /*trans_a=*/true, /*trans_b=*/true);
  ASSERT_EQ(out.shape(), (Shape{7, 1000}));
  const Tensor zero = Tensor::zeros(Shape{7, 1000});
  EXPECT_TRUE(all_close(out.to_vector<float>(), naive_gemm(a, true, b, true, zero, 1.0f, 0.0f),
                        1e-4f, 1e-5f));
}

TEST(Gemm, RejectsInnerDimensionMismatchNamingBothShapes) {
  const Tensor a = random_tensor(Shape{7, 5}, 1), b = random_tensor(Shape{6, 3}, 2);
  Tensor c = Tensor::zeros(Shape{7, 3});
  const std::string message = error_message([&] { gemm(a, false, b, false, c); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "op(a) is (7, 5)", message);
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "op(b) is (6, 3)", message);
}

TEST(Gemm, RejectsOutputOfWrongShape) {
  const Tensor a = random_tensor(Shape{7, 5}, 1), b = random_tensor(Shape{5, 3}, 2);
  Tensor c = Tensor::zeros(Shape{7, 4});
  const std::string message = error_message([&] { gemm(a, false, b, false, c); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "out must have shape (7, 3), found (7, 4)", message);
}

TEST(Gemm, RejectsIntegerOperandNamingIt) {
  const Tensor a = random_tensor(Shape{7, 5}, 1);
  const Tensor b = Tensor::zeros(Shape{5, 3}, DType::i32);
  Tensor c = Tensor::zeros(Shape{7, 3});
  const std::string message = error_message([&] { gemm(a, false, b, false, c); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "gemm: b must be", message);
}

TEST(Gemm, RejectsOperandsThatAreNotMatrices) {
  const Tensor a = random_tensor(Shape{7}, 1), b = random_tensor(Shape{7, 3}, 2);
  Tensor c = Tensor::zeros(Shape{1, 3});
  const std::string message = error_message([&] { gemm(a, false, b, false, c); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "must be matrices", message);
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "(7,)", message);
}

}  // namespace
}  // namespace kiln
