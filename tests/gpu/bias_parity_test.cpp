// GPU parity of bias_add and bias_grad against the CPU at odd (rows, cols), for 2-D and 3-D y;
// bias_grad accumulates (+=) into a dbias that starts non-zero, and repeats to the same bits.
#include <gtest/gtest.h>

#include <cstdint>

#include "kiln/core/ops.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kElementwiseRtol;
using testing::kGpu;
using testing::kReductionRtol;
using testing::on_gpu;
using testing::random_tensor;

const Shape kShapes[] = {Shape{1, 1},    Shape{7, 33},   Shape{1000, 7},  Shape{33, 1000},
                         Shape{4099, 3}, Shape{2, 3, 7}, Shape{70000, 1}, Shape{5, 4099}};

TEST(BiasParity, BiasAddMatchesCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 1500;
  for (const Shape& shape : kShapes) {
    SCOPED_TRACE(shape.str());
    const Tensor y = random_tensor(shape, seed++);
    const Tensor bias = random_tensor(Shape{shape[shape.rank() - 1]}, seed++);
    Tensor expected = y.clone();
    bias_add(expected, bias);
    Tensor actual = on_gpu(y);
    bias_add(actual, on_gpu(bias));
    EXPECT_TRUE(all_close(actual, expected, kElementwiseRtol, 0.0f));
  }
}

TEST(BiasParity, BiasGradAccumulatesColumnSumsLikeCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 1600;
  for (const Shape& shape : kShapes) {
    SCOPED_TRACE(shape.str());
    const Tensor dy = random_tensor(shape, seed++);
    const Tensor start = random_tensor(Shape{shape[shape.rank() - 1]}, seed++, 1.0f, 2.0f);
    Tensor expected = start.clone();
    bias_grad(dy, expected);
    bias_grad(dy, expected);  // twice: "+=" on top of the previous call
    const Tensor dy_gpu = on_gpu(dy);
    Tensor actual = on_gpu(start);
    bias_grad(dy_gpu, actual);
    bias_grad(dy_gpu, actual);
    // Column sums run in double on both devices; 1e-6 absolute for sums that cancel to ~0.
    EXPECT_TRUE(all_close(actual, expected, kReductionRtol, 1e-6f));

    Tensor again = on_gpu(start);
    bias_grad(dy_gpu, again);
    bias_grad(dy_gpu, again);
    EXPECT_EQ(again.to_vector<float>(), actual.to_vector<float>());
  }
}

}  // namespace
}  // namespace kiln
