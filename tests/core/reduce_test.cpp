// kiln::reduce (sum, mean, max), kiln::argmax and kiln::sum_squares on the CPU against double
// loops over every axis of odd-sized tensors; accuracy of long sums; ties and NaN in max/argmax;
// and the shape and dtype errors.
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

constexpr ReduceOp kAll[] = {ReduceOp::sum, ReduceOp::mean, ReduceOp::max};

using testing::error_message;

Shape without_axis(const Shape& s, int axis) {
  std::vector<std::int64_t> dims;
  for (int i = 0; i < s.rank(); ++i)
    if (i != axis) dims.push_back(s[i]);
  return Shape(dims);
}

// Reduction of x along `axis` in double (max: the largest value, argmax: its first index).
std::vector<double> reference(ReduceOp op, const Tensor& x, int axis, bool arg = false) {
  const auto v = x.to_vector<float>();
  const std::int64_t n = x.size(axis), outer = x.shape().product(0, axis),
                     inner = x.shape().product(axis + 1, x.rank());
  std::vector<double> out;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < inner; ++j) {
      double sum = 0.0, best = -std::numeric_limits<double>::infinity();
      std::int64_t best_k = -1;
      for (std::int64_t k = 0; k < n; ++k) {
        const double e = v[(o * n + k) * inner + j];
        sum += e;
        if (e > best) best = e, best_k = k;
      }
      if (arg)
        out.push_back(static_cast<double>(best_k));
      else
        out.push_back(op == ReduceOp::sum ? sum : op == ReduceOp::mean ? sum / n : best);
    }
  return out;
}

std::vector<float> as_floats(const std::vector<double>& v) { return {v.begin(), v.end()}; }

TEST(Reduce, MatchesDoubleLoopAlongEveryAxis) {
  const Shape shapes[] = {Shape{1},        Shape{1000},       Shape{7, 33},   Shape{1000, 7},
                          Shape{7, 33, 5}, Shape{1, 1000, 3}, Shape{333, 201}};
  std::uint32_t seed = 600;
  for (const Shape& shape : shapes)
    for (int axis = 0; axis < shape.rank(); ++axis)
      for (ReduceOp op : kAll) {
        SCOPED_TRACE(::testing::Message() << "shape " << shape.str() << " axis " << axis << " op "
                                          << static_cast<int>(op));
        const Tensor x = random_tensor(shape, seed++, -2.0f, 3.0f);
        Tensor out = Tensor::empty(without_axis(shape, axis));
        reduce(op, x, axis, out);
        EXPECT_TRUE(
            all_close(out.to_vector<float>(), as_floats(reference(op, x, axis)), 1e-4f, 1e-5f));
      }
}

TEST(Reduce, AcceptsNegativeAxisCountingFromTheEnd) {
  const Tensor x = random_tensor(Shape{7, 33, 5}, 1);
  Tensor last = Tensor::empty(Shape{7, 33}), middle = Tensor::empty(Shape{7, 5});
  reduce(ReduceOp::mean, x, -1, last);
  reduce(ReduceOp::sum, x, -2, middle);
  EXPECT_TRUE(
      all_close(last.to_vector<float>(), as_floats(reference(ReduceOp::mean, x, 2)), 1e-4f, 1e-6f));
  EXPECT_TRUE(all_close(middle.to_vector<float>(), as_floats(reference(ReduceOp::sum, x, 1)), 1e-4f,
                        1e-5f));
}

TEST(Reduce, SumOfAMillionElementsKeepsFloatPrecision) {
  // A float accumulator drifts by about 1% here; the sum must not.
  constexpr std::int64_t n = 1000003;
  const Tensor x = Tensor::full(Shape{n}, 0.1f);
  Tensor out = Tensor::empty(Shape{});
  reduce(ReduceOp::sum, x, 0, out);
  EXPECT_NEAR(out.item(), n * static_cast<double>(0.1f), 1e-6 * n * 0.1);
}

TEST(Reduce, MaxPropagatesNaN) {
  std::vector<float> v = testing::random_values(33, 3);
  v[17] = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = Tensor::from_vector(v, Shape{33});
  Tensor out = Tensor::empty(Shape{});
  reduce(ReduceOp::max, x, 0, out);
  EXPECT_TRUE(std::isnan(out.item()));
}

TEST(Argmax, ReturnsIndexOfMaximumAlongEveryAxis) {
  const Shape shapes[] = {Shape{1}, Shape{1000}, Shape{7, 33}, Shape{7, 33, 5}, Shape{1000, 7}};
  std::uint32_t seed = 700;
  for (const Shape& shape : shapes)
    for (int axis = 0; axis < shape.rank(); ++axis) {
      SCOPED_TRACE(::testing::Message() << "shape " << shape.str() << " axis " << axis);
      const Tensor x = random_tensor(shape, seed++);
      Tensor out = Tensor::empty(without_axis(shape, axis), DType::i32);
      argmax(x, axis, out);
      std::vector<std::int32_t> expected;
      for (double k : reference(ReduceOp::max, x, axis, /*arg=*/true))
        expected.push_back(static_cast<std::int32_t>(k));
      EXPECT_EQ(out.to_vector<std::int32_t>(), expected);
    }
}

TEST(Argmax, PicksFirstIndexAmongTiedMaxima) {
  const Tensor x = Tensor::from_vector(
      std::vector<float>{1.0f, 5.0f, 2.0f, 5.0f, 5.0f, -1.0f, -1.0f, -3.0f, -1.0f}, Shape{3, 3});
  Tensor rows = Tensor::empty(Shape{3}, DType::i32), cols = Tensor::empty(Shape{3}, DType::i32);
  argmax(x, 1, rows);
  argmax(x, 0, cols);
  EXPECT_EQ(rows.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 0, 0}));
  EXPECT_EQ(cols.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 0, 0}));
}

TEST(SumSquares, MatchesDoubleLoopAtOddSizes) {
  for (std::int64_t n : {1, 7, 33, 1000, 100003}) {
    const Tensor x = random_tensor(Shape{n}, static_cast<std::uint32_t>(n), -3.0f, 3.0f);
    double expected = 0.0;
    for (float v : x.to_vector<float>()) expected += double(v) * v;
    Tensor out = Tensor::empty(Shape{1});
    sum_squares(x, out);
    EXPECT_NEAR(out.item(), expected, 1e-6 * expected) << "n " << n;
  }
}

TEST(SumSquares, TreatsAnyShapeAsOneVector) {
  const Tensor x = random_tensor(Shape{7, 3, 11}, 9);
  double expected = 0.0;
  for (float v : x.to_vector<float>()) expected += double(v) * v;
  Tensor out = Tensor::empty(Shape{1});
  sum_squares(x, out);
  EXPECT_NEAR(out.item(), expected, 1e-6 * expected);
}

TEST(Reduce, RejectsOutputOfWrongShapeNamingExpectedShape) {
  const Tensor x = random_tensor(Shape{7, 33, 5}, 1);
  Tensor out = Tensor::empty(Shape{7, 33});
  const std::string message = error_message([&] { reduce(ReduceOp::sum, x, 1, out); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "out must have shape (7, 5), found (7, 33)", message);
}

TEST(Reduce, RejectsAxisOutOfRange) {
  const Tensor x = random_tensor(Shape{7, 33}, 1);
  Tensor out = Tensor::empty(Shape{7});
  const std::string message = error_message([&] { reduce(ReduceOp::max, x, 2, out); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "axis 2 is out of range for shape (7, 33)", message);
}

TEST(Argmax, RejectsFloatOutput) {
  const Tensor x = random_tensor(Shape{7, 33}, 1);
  Tensor out = Tensor::empty(Shape{7});
  const std::string message = error_message([&] { argmax(x, 1, out); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "argmax: out must be", message);
}

TEST(SumSquares, RejectsOutputThatIsNotOneElement) {
  const Tensor x = random_tensor(Shape{7}, 1);
  Tensor out = Tensor::empty(Shape{7});
  const std::string message = error_message([&] { sum_squares(x, out); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "out must have shape (1,), found (7,)", message);
}

}  // namespace
}  // namespace kiln
