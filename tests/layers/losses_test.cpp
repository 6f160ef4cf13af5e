#include <gtest/gtest.h>

#include <cmath>

#include "kiln/core/ops.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/layers/metrics.h"
#include "kiln/layers/mse_loss.h"
#include "tests/support/gradient_check.h"
#include "tests/support/tensor_testing.h"

using kiln::Shape;
using kiln::Tensor;

TEST(CrossEntropyLoss, MatchesTheDefinitionOnAHandComputedCase) {
  kiln::CrossEntropyLoss loss;
  const Tensor logits = Tensor::from_vector(std::vector<float>{1.0f, 2.0f, 3.0f, 0.0f, 0.0f, 0.0f}, {2, 3});
  const Tensor labels = Tensor::from_vector(std::vector<std::int32_t>{2, 0}, {2});
  const double row0 = -(3.0 - std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)));
  const double row1 = std::log(3.0);
  EXPECT_NEAR(loss.forward(logits, labels).item(), (row0 + row1) / 2, 1e-6);
}

TEST(CrossEntropyLoss, BackwardMatchesFiniteDifferencesWithAndWithoutSmoothing) {
  for (float smoothing : {0.0f, 0.1f}) {
    kiln::CrossEntropyLoss loss(smoothing);
    Tensor logits = kiln::testing::random_tensor({7, 5}, 3, -3.0f, 3.0f);
    const Tensor labels = kiln::testing::random_labels(7, 5, 4);
    loss.forward(logits, labels);
    const Tensor analytic = loss.backward().clone();
    auto f = [&] { return static_cast<double>(loss.forward(logits, labels).item()); };
    EXPECT_TRUE(kiln::testing::gradient_matches_finite_differences(f, logits, analytic, "logits"))
        << "label smoothing " << smoothing;
  }
}

TEST(CrossEntropyLoss, StaysFiniteForHugeLogits) {
  kiln::CrossEntropyLoss loss;
  const Tensor logits = Tensor::from_vector(std::vector<float>{1e30f, -1e30f, 0.0f}, {1, 3});
  const Tensor labels = Tensor::from_vector(std::vector<std::int32_t>{1}, {1});
  EXPECT_TRUE(std::isfinite(loss.forward(logits, labels).item()));
  for (float g : loss.backward().to_vector<float>()) EXPECT_TRUE(std::isfinite(g));
}

TEST(CrossEntropyLoss, RejectsLabelsOutOfRangeNamingValueAndPosition) {
  kiln::CrossEntropyLoss loss;
  const Tensor logits = kiln::testing::random_tensor({4, 10}, 1);
  for (std::int32_t bad : {-1, 10, 12}) {
    const Tensor labels = Tensor::from_vector(std::vector<std::int32_t>{0, 3, bad, 9}, {4});
    try {
      loss.forward(logits, labels);
      FAIL() << "label " << bad << " accepted";
    } catch (const kiln::Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("[0, 10)"), std::string::npos) << m;
      EXPECT_NE(m.find("found " + std::to_string(bad) + " at sample 2"), std::string::npos) << m;
    }
  }
}

TEST(CrossEntropyLoss, RejectsBatchSizesThatDiffer) {
  kiln::CrossEntropyLoss loss;
  try {
    loss.forward(kiln::testing::random_tensor({4, 10}, 1), kiln::testing::random_labels(5, 10, 2));
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("batch sizes differ"), std::string::npos) << e.what();
  }
  EXPECT_THROW(kiln::CrossEntropyLoss().backward(), kiln::Error);
}

TEST(MSELoss, MatchesTheDefinitionAndFiniteDifferences) {
  kiln::MSELoss loss;
  Tensor prediction = kiln::testing::random_tensor({7, 3}, 5);
  const Tensor target = kiln::testing::random_tensor({7, 3}, 6);
  const auto p = prediction.to_vector<float>(), t = target.to_vector<float>();
  double expected = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) expected += (p[i] - t[i]) * (p[i] - t[i]);
  EXPECT_NEAR(loss.forward(prediction, target).item(), expected / 21.0, 1e-6);
  const Tensor analytic = loss.backward().clone();
  auto f = [&] { return static_cast<double>(loss.forward(prediction, target).item()); };
  EXPECT_TRUE(kiln::testing::gradient_matches_finite_differences(f, prediction, analytic, "prediction"));
  EXPECT_THROW(loss.forward(prediction, kiln::testing::random_tensor({3, 7}, 1)), kiln::Error);
}

// Past 2^24 a float count stops growing by one; the count is an int32, exact (a long epoch).
TEST(RunningMetrics, CountsExactlyPastTwoToThe24) {
  const Tensor logits = Tensor::from_vector(std::vector<float>{0.1f, 0.9f}, {1, 2});
  const Tensor labels = Tensor::from_vector(std::vector<std::int32_t>{1}, {1});
  Tensor correct = Tensor::from_vector(std::vector<std::int32_t>{1 << 24}, {1});
  kiln::count_correct(logits, labels, correct);
  EXPECT_EQ(correct.to_vector<std::int32_t>()[0], (1 << 24) + 1);
  Tensor float_count = Tensor::zeros(Shape{1});
  EXPECT_THROW(kiln::count_correct(logits, labels, float_count), kiln::Error);  // int32 only
}

TEST(RunningMetrics, CountsTopOneHitsAndAveragesTheLoss) {
  kiln::RunningMetrics metrics;
  const Tensor logits = Tensor::from_vector(std::vector<float>{0.1f, 0.9f, 0.8f, 0.2f, 0.3f, 0.3f}, {3, 2});
  const Tensor labels = Tensor::from_vector(std::vector<std::int32_t>{1, 1, 0}, {3});
  metrics.update(logits, labels, Tensor::full(Shape{}, 2.0f));
  metrics.update(logits.slice(0, 1), labels.slice(0, 1), Tensor::full(Shape{}, 6.0f));
  const auto v = metrics.read();
  EXPECT_EQ(v.samples, 4);
  EXPECT_DOUBLE_EQ(v.accuracy, 3.0 / 4.0);  // rows 0 and 2 (a tie goes to the first) + row 0
  EXPECT_DOUBLE_EQ(v.mean_loss, (2.0 * 3 + 6.0 * 1) / 4.0);
  metrics.reset();
  EXPECT_EQ(metrics.read().samples, 0);
}
