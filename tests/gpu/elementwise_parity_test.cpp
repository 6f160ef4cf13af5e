// GPU parity of the elementwise ops against the CPU at odd sizes: every binary op (also with
// out aliasing an input), scale, axpy, and fill of float32 and int32 tensors and of slices.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kiln/core/ops.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kElementwiseRtol;
using testing::kGpu;
using testing::on_gpu;
using testing::random_tensor;

constexpr std::int64_t kSizes[] = {1, 7, 33, 1000, 4099};
constexpr float kAtol = 1e-7f;

struct Case {
  BinaryOp op;
  const char* name;
};
constexpr Case kBinaryOps[] = {{BinaryOp::add, "add"}, {BinaryOp::sub, "sub"},
                               {BinaryOp::mul, "mul"}, {BinaryOp::div, "div"},
                               {BinaryOp::max, "max"}, {BinaryOp::min, "min"}};

TEST(ElementwiseParity, BinaryOpsMatchCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 500;
  for (const Case& c : kBinaryOps)
    for (std::int64_t n : kSizes) {
      SCOPED_TRACE(::testing::Message() << c.name << " n " << n);
      const Tensor a = random_tensor(Shape{n}, seed++);
      const Tensor b = random_tensor(Shape{n}, seed++, 0.25f, 2.0f);
      Tensor expected = Tensor::empty(Shape{n});
      binary(c.op, a, b, expected);
      const Tensor a_gpu = on_gpu(a), b_gpu = on_gpu(b);
      Tensor actual = Tensor::empty(Shape{n}, DType::f32, kGpu);
      binary(c.op, a_gpu, b_gpu, actual);
      EXPECT_TRUE(all_close(actual, expected, kElementwiseRtol, kAtol));

      Tensor into_a = on_gpu(a);  // out aliases a
      binary(c.op, into_a, b_gpu, into_a);
      EXPECT_TRUE(all_close(into_a, expected, kElementwiseRtol, kAtol));
      Tensor into_b = on_gpu(b);  // out aliases b
      binary(c.op, a_gpu, into_b, into_b);
      EXPECT_TRUE(all_close(into_b, expected, kElementwiseRtol, kAtol));
    }
}

TEST(ElementwiseParity, ScaleAndAxpyMatchCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 600;
  for (std::int64_t n : kSizes) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    const Tensor x = random_tensor(Shape{n}, seed++), y = random_tensor(Shape{n}, seed++);
    Tensor scaled = x.clone();
    scale(scaled, -0.37f);
    Tensor scaled_gpu = on_gpu(x);
    scale(scaled_gpu, -0.37f);
    EXPECT_TRUE(all_close(scaled_gpu, scaled, kElementwiseRtol, kAtol));

    Tensor sum = y.clone();
    axpy(1.7f, x, sum);
    Tensor sum_gpu = on_gpu(y);
    axpy(1.7f, on_gpu(x), sum_gpu);
    // y + alpha x may cancel; either device may fuse it into one fma.
    EXPECT_TRUE(all_close(sum_gpu, sum, kElementwiseRtol, 1e-6f));
  }
}

TEST(ElementwiseParity, FillSetsFloatAndIntTensors) {
  KILN_REQUIRE_GPU();
  for (std::int64_t n : kSizes) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    Tensor f = Tensor::empty(Shape{n}, DType::f32, kGpu);
    fill(f, -2.5f);
    EXPECT_EQ(f.to_vector<float>(), std::vector<float>(static_cast<std::size_t>(n), -2.5f));
    Tensor i = Tensor::empty(Shape{n}, DType::i32, kGpu);
    fill(i, 7.0f);
    EXPECT_EQ(i.to_vector<std::int32_t>(),
              std::vector<std::int32_t>(static_cast<std::size_t>(n), 7));
    fill(i, -123456.0f);
    EXPECT_EQ(i.to_vector<std::int32_t>(),
              std::vector<std::int32_t>(static_cast<std::size_t>(n), -123456));
  }
}

TEST(ElementwiseParity, OpsOnASliceLeaveTheRestAlone) {
  KILN_REQUIRE_GPU();
  const Tensor x = random_tensor(Shape{10, 7}, 700);
  Tensor expected = x.clone();
  Tensor expected_rows = expected.slice(2, 5);
  scale(expected_rows, 3.0f);
  Tensor gpu = on_gpu(x);
  Tensor gpu_rows = gpu.slice(2, 5);
  scale(gpu_rows, 3.0f);
  EXPECT_TRUE(all_close(gpu, expected, 0.0f, 0.0f));

  Tensor filled = on_gpu(x);
  Tensor filled_rows = filled.slice(9, 10);
  fill(filled_rows, 0.5f);
  Tensor filled_expected = x.clone();
  Tensor filled_expected_rows = filled_expected.slice(9, 10);
  fill(filled_expected_rows, 0.5f);
  EXPECT_TRUE(all_close(filled, filled_expected, 0.0f, 0.0f));
}

}  // namespace
}  // namespace kiln
