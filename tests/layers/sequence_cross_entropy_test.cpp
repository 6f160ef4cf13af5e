// SequenceCrossEntropyLoss: (B, T, V) logits against (B, T) labels with an ignore index.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/layers/gradient_check.h"
#include "kiln/layers/loss.h"
#include "kiln/layers/sequence_cross_entropy_loss.h"
#include "tests/support/error_testing.h"
#include "tests/support/tensor_testing.h"

namespace kiln {
namespace {

TEST(SequenceCrossEntropyLoss, IgnoredPositionsCountNothingInTheMeanAndGetNoGradient) {
  // B = 1, T = 3, V = 2; the middle position is ignored.
  const Tensor logits =
      Tensor::from_vector(std::vector<float>{1.0f, 2.0f, 5.0f, -5.0f, 0.5f, -0.5f}, Shape{1, 3, 2});
  const Tensor labels = Tensor::from_vector(std::vector<std::int32_t>{0, -1, 1}, Shape{1, 3});
  SequenceCrossEntropyLoss loss;
  const double loss0 = std::log(std::exp(1.0) + std::exp(2.0)) - 1.0;   // -log p(0) of row 0
  const double loss2 = std::log(std::exp(0.5) + std::exp(-0.5)) + 0.5;  // -log p(1) of row 2
  EXPECT_NEAR(loss.forward(logits, labels).item(), (loss0 + loss2) / 2.0, 1e-6);
  EXPECT_EQ(loss.counted_positions().item(), 2.0);
  const std::vector<float> d = loss.backward().to_vector<float>();
  ASSERT_EQ(loss.backward().shape(), (Shape{1, 3, 2}));
  const double p0 = std::exp(1.0) / (std::exp(1.0) + std::exp(2.0));
  EXPECT_NEAR(d[0], (p0 - 1.0) / 2.0, 1e-6);
  EXPECT_NEAR(d[1], (1.0 - p0) / 2.0, 1e-6);
  EXPECT_EQ(d[2], 0.0f);  // the ignored position
  EXPECT_EQ(d[3], 0.0f);
  const double p1 = std::exp(-0.5) / (std::exp(0.5) + std::exp(-0.5));
  EXPECT_NEAR(d[5], (p1 - 1.0) / 2.0, 1e-6);
}

TEST(SequenceCrossEntropyLoss, BackwardMatchesFiniteDifferences) {
  Tensor logits = testing::random_tensor(Shape{3, 7, 5}, 41, -2.0f, 2.0f);
  std::vector<std::int32_t> ids = testing::random_labels(21, 5, 42).to_vector<std::int32_t>();
  for (std::size_t i = 0; i < ids.size(); i += 4) ids[i] = -1;
  const Tensor labels = Tensor::from_vector(ids, Shape{3, 7});
  SequenceCrossEntropyLoss loss;
  const auto f = [&] { return static_cast<double>(loss.forward(logits, labels).item()); };
  f();
  const Tensor analytic = loss.backward().clone();
  const GradientCheckResult result = check_gradient(f, logits, analytic, "logits");
  EXPECT_TRUE(result.ok) << result.report;
}

TEST(SequenceCrossEntropyLoss, RefusesMismatchedShapesAndIsWhatMakeLossGivesForSequences) {
  SequenceCrossEntropyLoss loss;
  const std::string message = testing::error_message([&] {
    loss.forward(Tensor::zeros(Shape{2, 3, 4}), Tensor::zeros(Shape{2, 4}, DType::i32));
  });
  EXPECT_NE(message.find("labels must be (batch, positions) = (2, 3)"), std::string::npos)
      << message;
  EXPECT_TRUE(make_loss("cross-entropy", true)->reports_perplexity());
  EXPECT_FALSE(make_loss("cross-entropy")->reports_perplexity());
}

}  // namespace
}  // namespace kiln
