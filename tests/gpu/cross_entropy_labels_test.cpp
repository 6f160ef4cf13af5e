// What the GPU's cross-entropy does where the CPU would throw: an out-of-range label gives its row
// a NaN loss and a NaN row of dlogits (the host is not synchronised to check), and the valid rows
// still match the CPU. Parity on valid labels is the op harness's (tests/ops/).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kiln/core/ops.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kElementwiseRtol;
using testing::kGpu;
using testing::kReductionRtol;
using testing::on_gpu;
using testing::random_labels;
using testing::random_tensor;

TEST(CrossEntropyOnTheGpu, OutOfRangeLabelGivesNaNLossOnTheGpu) {
  KILN_REQUIRE_GPU();
  for (std::int64_t cols : {std::int64_t{10}, std::int64_t{2000}}) {
    SCOPED_TRACE(::testing::Message() << "classes " << cols);
    const Tensor logits = random_tensor(Shape{4, cols}, 1900);
    const std::vector<std::int32_t> bad{3, static_cast<std::int32_t>(cols), -1, 0};
    const std::vector<std::int32_t> good{3, 0, 0, 0};
    Tensor probs = Tensor::empty(Shape{4, cols}, DType::f32, kGpu);
    Tensor losses = Tensor::empty(Shape{4}, DType::f32, kGpu);
    // No throw: the GPU does not synchronise to look at the labels.
    softmax_cross_entropy_forward(on_gpu(logits), Tensor::from_vector(bad, Shape{4}, kGpu), probs,
                                  losses, 0.1f);
    const std::vector<float> loss = losses.to_vector<float>();
    EXPECT_FALSE(std::isnan(loss[0]));
    EXPECT_TRUE(std::isnan(loss[1]));
    EXPECT_TRUE(std::isnan(loss[2]));
    EXPECT_FALSE(std::isnan(loss[3]));

    // The valid rows still match the CPU.
    Tensor probs_cpu = Tensor::empty(Shape{4, cols}), losses_cpu = Tensor::empty(Shape{4});
    softmax_cross_entropy_forward(logits, Tensor::from_vector(good, Shape{4}), probs_cpu,
                                  losses_cpu, 0.1f);
    const std::vector<float> expected = losses_cpu.to_vector<float>();
    EXPECT_NEAR(loss[0], expected[0], 1e-4f * std::abs(expected[0]));
    EXPECT_NEAR(loss[3], expected[3], 1e-4f * std::abs(expected[3]));

    // Backward: the bad rows become NaN throughout, the others stay finite.
    Tensor dlogits = Tensor::empty(Shape{4, cols}, DType::f32, kGpu);
    softmax_cross_entropy_backward(probs, Tensor::from_vector(bad, Shape{4}, kGpu), dlogits, 0.25f,
                                   0.1f);
    const std::vector<float> d = dlogits.to_vector<float>();
    for (std::int64_t r = 0; r < 4; ++r) {
      const bool bad_row = r == 1 || r == 2;
      std::int64_t nans = 0;
      for (std::int64_t c = 0; c < cols; ++c) nans += std::isnan(d[r * cols + c]) ? 1 : 0;
      EXPECT_EQ(nans, bad_row ? cols : 0) << "row " << r;
    }
  }
}

}  // namespace
}  // namespace kiln
