// GPU parity of reduce (sum, mean, max), argmax and sum_squares against the CPU: every op on
// every axis of odd shapes (covering the kernels' warp-per-row, block-per-row and column paths
// and their grid-stride loops), ties and NaN in argmax/max, and bitwise-repeatable results.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kiln/core/ops.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kGpu;
using testing::kReductionRtol;
using testing::on_gpu;
using testing::random_tensor;

// x's shape without `axis`.
Shape without_axis(const Shape& shape, int axis) {
  std::vector<std::int64_t> kept;
  const int a = shape.axis(axis);
  for (int i = 0; i < shape.rank(); ++i)
    if (i != a) kept.push_back(shape[i]);
  return Shape(kept);
}

const Shape kShapes[] = {
    Shape{1},           Shape{7},        Shape{1000},    Shape{4099},     Shape{7, 33},
    Shape{33, 1000},    Shape{3, 4099},  Shape{4099, 3}, Shape{33, 7, 5}, Shape{2, 1025, 3},
    Shape{1, 1000, 33}, Shape{40000, 5},  // more warp-rows than one grid covers: the row loop
                                          // strides
    Shape{70000, 2, 3}  // more outer slices than grid.y allows: the column loop strides
};

struct Case {
  ReduceOp op;
  const char* name;
};
constexpr Case kOps[] = {{ReduceOp::sum, "sum"}, {ReduceOp::mean, "mean"}, {ReduceOp::max, "max"}};

TEST(ReduceParity, EveryOpOnEveryAxisMatchesCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 800;
  for (const Shape& shape : kShapes) {
    const Tensor x = random_tensor(shape, seed++);
    const Tensor x_gpu = on_gpu(x);
    for (int axis = 0; axis < shape.rank(); ++axis)
      for (const Case& c : kOps) {
        SCOPED_TRACE(::testing::Message() << c.name << " of " << shape.str() << " axis " << axis);
        const Shape out_shape = without_axis(shape, axis);
        Tensor expected = Tensor::empty(out_shape);
        reduce(c.op, x, axis, expected);
        Tensor actual = Tensor::empty(out_shape, DType::f32, kGpu);
        reduce(c.op, x_gpu, axis, actual);
        // Both devices sum in double; max is exact.
        const float rtol = c.op == ReduceOp::max ? 0.0f : kReductionRtol;
        EXPECT_TRUE(all_close(actual, expected, rtol, c.op == ReduceOp::max ? 0.0f : 1e-6f));
      }
  }
}

TEST(ReduceParity, NegativeAxisCountsFromTheEnd) {
  KILN_REQUIRE_GPU();
  const Tensor x = random_tensor(Shape{7, 33}, 900);
  Tensor expected = Tensor::empty(Shape{7});
  reduce(ReduceOp::sum, x, -1, expected);
  Tensor actual = Tensor::empty(Shape{7}, DType::f32, kGpu);
  reduce(ReduceOp::sum, on_gpu(x), -1, actual);
  EXPECT_TRUE(all_close(actual, expected, kReductionRtol, 1e-6f));
}

TEST(ReduceParity, ArgmaxOnEveryAxisMatchesCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 1000;
  for (const Shape& shape : kShapes) {
    const Tensor x = random_tensor(shape, seed++);
    const Tensor x_gpu = on_gpu(x);
    for (int axis = 0; axis < shape.rank(); ++axis) {
      SCOPED_TRACE(::testing::Message() << "argmax of " << shape.str() << " axis " << axis);
      const Shape out_shape = without_axis(shape, axis);
      Tensor expected = Tensor::empty(out_shape, DType::i32);
      argmax(x, axis, expected);
      Tensor actual = Tensor::empty(out_shape, DType::i32, kGpu);
      argmax(x_gpu, axis, actual);
      EXPECT_EQ(actual.to_vector<std::int32_t>(), expected.to_vector<std::int32_t>());
    }
  }
}

// Values from {0, 1, 2} tie everywhere: the first maximum must win on both devices, whichever
// thread of the GPU saw it.
TEST(ReduceParity, ArgmaxTiesGiveTheFirstIndex) {
  KILN_REQUIRE_GPU();
  for (const Shape& shape : {Shape{5, 4099}, Shape{33, 1000}, Shape{7, 2000, 3}}) {
    SCOPED_TRACE(shape.str());
    std::vector<float> values = testing::random_values(shape.numel(), 1100, 0.0f, 3.0f);
    for (float& v : values) v = std::floor(v);
    const Tensor x = Tensor::from_vector(values, shape);
    for (int axis = 0; axis < shape.rank(); ++axis) {
      const Shape out_shape = without_axis(shape, axis);
      Tensor expected = Tensor::empty(out_shape, DType::i32);
      argmax(x, axis, expected);
      Tensor actual = Tensor::empty(out_shape, DType::i32, kGpu);
      argmax(on_gpu(x), axis, actual);
      EXPECT_EQ(actual.to_vector<std::int32_t>(), expected.to_vector<std::int32_t>())
          << "axis " << axis;
    }
  }
}

TEST(ReduceParity, MaxAndArgmaxLetTheFirstNaNWin) {
  KILN_REQUIRE_GPU();
  std::vector<float> values = testing::random_values(4 * 1500, 1200);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  values[0 * 1500 + 700] = nan;  // row 0: one NaN
  values[1 * 1500 + 3] = nan;    // row 1: two; the first wins argmax
  values[1 * 1500 + 1499] = nan;
  values[3 * 1500 + 0] = nan;  // row 3: at the very start
  const Tensor x = Tensor::from_vector(values, Shape{4, 1500});
  Tensor expected_max = Tensor::empty(Shape{4});
  reduce(ReduceOp::max, x, 1, expected_max);
  Tensor actual_max = Tensor::empty(Shape{4}, DType::f32, kGpu);
  reduce(ReduceOp::max, on_gpu(x), 1, actual_max);
  EXPECT_TRUE(all_close(actual_max, expected_max, 0.0f, 0.0f));  // NaN matches NaN

  Tensor expected_arg = Tensor::empty(Shape{4}, DType::i32);
  argmax(x, 1, expected_arg);
  Tensor actual_arg = Tensor::empty(Shape{4}, DType::i32, kGpu);
  argmax(on_gpu(x), 1, actual_arg);
  EXPECT_EQ(actual_arg.to_vector<std::int32_t>(), expected_arg.to_vector<std::int32_t>());
  const std::vector<std::int32_t> arg = actual_arg.to_vector<std::int32_t>();
  EXPECT_EQ(arg[0], 700);
  EXPECT_EQ(arg[1], 3);
  EXPECT_EQ(arg[3], 0);
}

TEST(ReduceParity, SumSquaresMatchesCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 1300;
  for (std::int64_t n : {1, 7, 33, 1000, 4099, 8192, 8193, 1000003, 10000019}) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    const Tensor x = random_tensor(Shape{n}, seed++);
    Tensor expected = Tensor::empty(Shape{1});
    sum_squares(x, expected);
    Tensor actual = Tensor::empty(Shape{1}, DType::f32, kGpu);
    sum_squares(on_gpu(x), actual);
    EXPECT_TRUE(all_close(actual, expected, kReductionRtol, 0.0f));
  }
}

TEST(ReduceParity, SumSquaresOfAnEmptyTensorIsZero) {
  KILN_REQUIRE_GPU();
  const Tensor x = Tensor::empty(Shape{0}, DType::f32, kGpu);
  Tensor out = Tensor::full(Shape{1}, 5.0f, kGpu);
  sum_squares(x, out);
  EXPECT_EQ(out.item(), 0.0f);
}

TEST(ReduceParity, RepeatedRunsGiveTheSameBits) {
  KILN_REQUIRE_GPU();
  const Tensor x = on_gpu(random_tensor(Shape{3, 100003}, 1400));
  Tensor first = Tensor::empty(Shape{3}, DType::f32, kGpu);
  Tensor second = Tensor::empty(Shape{3}, DType::f32, kGpu);
  reduce(ReduceOp::sum, x, 1, first);
  reduce(ReduceOp::sum, x, 1, second);
  EXPECT_EQ(first.to_vector<float>(), second.to_vector<float>());
  Tensor sq1 = Tensor::empty(Shape{1}, DType::f32, kGpu);
  Tensor sq2 = Tensor::empty(Shape{1}, DType::f32, kGpu);
  sum_squares(x, sq1);
  sum_squares(x, sq2);
  EXPECT_EQ(sq1.item(), sq2.item());
}

}  // namespace
}  // namespace kiln
