// GPU parity of softmax, log_softmax and the fused softmax cross-entropy (forward and backward,
// with and without label smoothing) against the CPU, at row lengths on both sides of the
// warp-per-row / block-per-row switch; and the GPU's NaN for an out-of-range label.
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

// (rows, C): C = 1024 is the longest warp row, 1025 the shortest block row.
const Shape kShapes[] = {Shape{1, 1},    Shape{7, 10},   Shape{33, 1000}, Shape{3, 1024},
                         Shape{5, 1025}, Shape{3, 4099}, Shape{40000, 7}, Shape{1000, 33}};

TEST(SoftmaxParity, SoftmaxAndLogSoftmaxMatchCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 1700;
  const Shape shapes_3d[] = {Shape{2, 3, 7}};
  std::vector<Shape> shapes(std::begin(kShapes), std::end(kShapes));
  shapes.insert(shapes.end(), std::begin(shapes_3d), std::end(shapes_3d));
  for (const Shape& shape : shapes)
    for (bool log : {false, true}) {
      SCOPED_TRACE(::testing::Message() << (log ? "log_softmax " : "softmax ") << shape.str());
      const Tensor x = random_tensor(shape, seed++, -8.0f, 8.0f);
      Tensor expected = Tensor::empty(shape);
      Tensor actual = Tensor::empty(shape, DType::f32, kGpu);
      if (log) {
        log_softmax(x, expected);
        log_softmax(on_gpu(x), actual);
      } else {
        softmax(x, expected);
        softmax(on_gpu(x), actual);
      }
      EXPECT_TRUE(all_close(actual, expected, kReductionRtol, 1e-7f));
    }
}

TEST(SoftmaxParity, SoftmaxIsStableForHugeLogits) {
  KILN_REQUIRE_GPU();
  const Tensor x =
      Tensor::from_vector(std::vector<float>{1e30f, -1e30f, 88.0f, 1e4f, 1e4f, -1e4f}, Shape{2, 3});
  Tensor expected = Tensor::empty(Shape{2, 3});
  softmax(x, expected);
  Tensor actual = Tensor::empty(Shape{2, 3}, DType::f32, kGpu);
  softmax(on_gpu(x), actual);
  EXPECT_TRUE(all_close(actual, expected, kElementwiseRtol, 0.0f));
}

TEST(SoftmaxParity, CrossEntropyForwardAndBackwardMatchCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 1800;
  for (const Shape& shape : kShapes)
    for (float eps : {0.0f, 0.1f}) {
      SCOPED_TRACE(::testing::Message() << shape.str() << " label smoothing " << eps);
      const std::int64_t rows = shape[0], cols = shape[1];
      const Tensor logits = random_tensor(shape, seed++, -5.0f, 5.0f);
      const Tensor labels = random_labels(rows, static_cast<std::int32_t>(cols), seed++);
      Tensor probs = Tensor::empty(shape), losses = Tensor::empty(Shape{rows});
      softmax_cross_entropy_forward(logits, labels, probs, losses, eps);

      const Tensor labels_gpu = on_gpu(labels);
      Tensor probs_gpu = Tensor::empty(shape, DType::f32, kGpu);
      Tensor losses_gpu = Tensor::empty(Shape{rows}, DType::f32, kGpu);
      softmax_cross_entropy_forward(on_gpu(logits), labels_gpu, probs_gpu, losses_gpu, eps);
      EXPECT_TRUE(all_close(probs_gpu, probs, kReductionRtol, 1e-7f)) << "probs";
      // A one-class row has loss 0 up to rounding of lse - x; hence the small absolute floor.
      EXPECT_TRUE(all_close(losses_gpu, losses, kReductionRtol, 1e-6f)) << "losses";

      // Backward from the CPU's probs on both devices: the same float expressions, so this
      // is elementwise work.
      const float grad_scale = 1.0f / static_cast<float>(rows);
      Tensor dlogits = Tensor::empty(shape);
      softmax_cross_entropy_backward(probs, labels, dlogits, grad_scale, eps);
      Tensor dlogits_gpu = Tensor::full(shape, 123.0f, kGpu);  // "=": must be overwritten
      softmax_cross_entropy_backward(on_gpu(probs), labels_gpu, dlogits_gpu, grad_scale, eps);
      EXPECT_TRUE(all_close(dlogits_gpu, dlogits, kElementwiseRtol, 1e-8f)) << "dlogits";
    }
}

TEST(SoftmaxParity, OutOfRangeLabelGivesNaNLossOnTheGpu) {
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
