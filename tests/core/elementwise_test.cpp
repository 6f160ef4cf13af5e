// kiln::binary, scale, axpy and fill on the CPU against double-precision loops at odd sizes,
// including outputs that alias an input, and the shape, dtype and value errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kiln/core/ops.h"
#include "tests/support/error_testing.h"
#include "tests/support/tensor_testing.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::random_tensor;

constexpr BinaryOp kBinaryOps[] = {BinaryOp::add, BinaryOp::sub, BinaryOp::mul,
                                   BinaryOp::div, BinaryOp::max, BinaryOp::min};
constexpr std::int64_t kElementwiseSizes[] = {1, 7, 33, 1000,
                                              40001};  // the last runs multithreaded

using testing::error_message;

double reference(BinaryOp op, double a, double b) {
  switch (op) {
    case BinaryOp::add: return a + b;
    case BinaryOp::sub: return a - b;
    case BinaryOp::mul: return a * b;
    case BinaryOp::div: return a / b;
    case BinaryOp::max: return std::max(a, b);
    case BinaryOp::min: return std::min(a, b);
  }
  return 0.0;
}

std::vector<float> reference(BinaryOp op, const Tensor& a, const Tensor& b) {
  const auto av = a.to_vector<float>(), bv = b.to_vector<float>();
  std::vector<float> out(av.size());
  for (std::size_t i = 0; i < av.size(); ++i)
    out[i] = static_cast<float>(reference(op, av[i], bv[i]));
  return out;
}

TEST(Binary, MatchesDoublePrecisionLoopForEveryOp) {
  std::uint32_t seed = 500;
  for (BinaryOp op : kBinaryOps)
    for (std::int64_t n : kElementwiseSizes) {
      SCOPED_TRACE(::testing::Message() << "op " << static_cast<int>(op) << " n " << n);
      const Tensor a = random_tensor(Shape{n}, seed++, -3.0f, 3.0f);
      const Tensor b = random_tensor(Shape{n}, seed++, -3.0f, 3.0f);
      Tensor out = Tensor::empty(Shape{n});
      binary(op, a, b, out);
      EXPECT_TRUE(all_close(out.to_vector<float>(), reference(op, a, b), 1e-5f, 0.0f));
    }
}

TEST(Binary, WritesIntoEitherInputWhenOutputAliasesIt) {
  const Tensor a = random_tensor(Shape{7, 33}, 1), b = random_tensor(Shape{7, 33}, 2);
  const std::vector<float> expected = reference(BinaryOp::sub, a, b);
  Tensor into_a = a.clone(), into_b = b.clone();
  binary(BinaryOp::sub, into_a, b, into_a);
  binary(BinaryOp::sub, a, into_b, into_b);
  EXPECT_TRUE(all_close(into_a.to_vector<float>(), expected, 1e-6f, 0.0f));
  EXPECT_TRUE(all_close(into_b.to_vector<float>(), expected, 1e-6f, 0.0f));
}

TEST(Scale, MultipliesEveryElementInPlace) {
  for (std::int64_t n : kElementwiseSizes) {
    Tensor x = random_tensor(Shape{n}, static_cast<std::uint32_t>(n));
    std::vector<float> expected = x.to_vector<float>();
    for (float& v : expected) v = static_cast<float>(double(v) * -0.37);
    scale(x, -0.37f);
    EXPECT_TRUE(all_close(x.to_vector<float>(), expected, 1e-6f, 0.0f)) << "n " << n;
  }
}

TEST(Axpy, AddsScaledXIntoY) {
  for (std::int64_t n : kElementwiseSizes) {
    const Tensor x = random_tensor(Shape{n}, static_cast<std::uint32_t>(n));
    Tensor y = random_tensor(Shape{n}, static_cast<std::uint32_t>(n + 1));
    const auto xv = x.to_vector<float>(), yv = y.to_vector<float>();
    std::vector<float> expected(xv.size());
    for (std::size_t i = 0; i < xv.size(); ++i)
      expected[i] = static_cast<float>(yv[i] + 2.5 * xv[i]);
    axpy(2.5f, x, y);
    EXPECT_TRUE(all_close(y.to_vector<float>(), expected, 1e-5f, 1e-6f)) << "n " << n;
  }
}

TEST(Fill, SetsEveryFloatElement) {
  for (std::int64_t n : kElementwiseSizes) {
    Tensor x = random_tensor(Shape{n}, 3);
    fill(x, -1.25f);
    EXPECT_EQ(x.to_vector<float>(), std::vector<float>(static_cast<std::size_t>(n), -1.25f));
  }
}

TEST(Fill, SetsEveryIntegerElement) {
  Tensor x = Tensor::zeros(Shape{33, 7}, DType::i32);
  fill(x, 9.0f);
  EXPECT_EQ(x.to_vector<std::int32_t>(), std::vector<std::int32_t>(33 * 7, 9));
}

TEST(Fill, RejectsFractionalValueForIntegerTensor) {
  Tensor x = Tensor::zeros(Shape{7}, DType::i32);
  const std::string message = error_message([&] { fill(x, 2.5f); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "2.5 is not an int32 value", message);
}

TEST(Binary, RejectsOperandsOfDifferentShapesNamingBoth) {
  const Tensor a = random_tensor(Shape{7, 33}, 1), b = random_tensor(Shape{33, 7}, 2);
  Tensor out = Tensor::empty(Shape{7, 33});
  const std::string message = error_message([&] { binary(BinaryOp::add, a, b, out); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "a has shape (7, 33) but b has shape (33, 7)",
                      message);
}

TEST(Axpy, RejectsOperandsOfDifferentShapesNamingBoth) {
  const Tensor x = random_tensor(Shape{7}, 1);
  Tensor y = random_tensor(Shape{1000}, 2);
  const std::string message = error_message([&] { axpy(1.0f, x, y); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "x has shape (7,) but y has shape (1000,)", message);
}

TEST(Binary, RejectsIntegerOperandNamingIt) {
  const Tensor a = random_tensor(Shape{7}, 1), b = Tensor::zeros(Shape{7}, DType::i32);
  Tensor out = Tensor::empty(Shape{7});
  const std::string message = error_message([&] { binary(BinaryOp::mul, a, b, out); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "binary: b must be", message);
}

TEST(Scale, RejectsUndefinedTensor) {
  Tensor x;
  const std::string message = error_message([&] { scale(x, 2.0f); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "x is an undefined tensor", message);
}

}  // namespace
}  // namespace kiln
