#include <gtest/gtest.h>

#include <cmath>

#include "kiln/core/ops.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/layers/loss.h"
#include "kiln/layers/metrics.h"
#include "kiln/layers/mse_loss.h"
#include "tests/support/error_testing.h"
#include "tests/support/gradient_check.h"
#include "tests/support/tensor_testing.h"

#define EXPECT_CONTAINS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

using kiln::Shape;
using kiln::Tensor;

TEST(CrossEntropyLoss, MatchesTheDefinitionOnAHandComputedCase) {
  kiln::CrossEntropyLoss loss;
  const Tensor logits =
      Tensor::from_vector(std::vector<float>{1.0f, 2.0f, 3.0f, 0.0f, 0.0f, 0.0f}, {2, 3});
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
  EXPECT_TRUE(
      kiln::testing::gradient_matches_finite_differences(f, prediction, analytic, "prediction"));
  EXPECT_THROW(loss.forward(prediction, kiln::testing::random_tensor({3, 7}, 1)), kiln::Error);
}

TEST(Loss, MakeLossKnowsTheNamesAndAliases) {
  for (const char* name : {"cross-entropy", "ce", "crossentropy", "cross_entropy"}) {
    const auto loss = kiln::make_loss(name);
    EXPECT_TRUE(loss->expects_class_labels()) << name;
    EXPECT_EQ(loss->describe(), "CrossEntropyLoss");
    EXPECT_EQ(kiln::canonical_loss_name(name), "cross-entropy");
  }
  for (const char* name : {"mse", "l2", "mean-squared-error"}) {
    const auto loss = kiln::make_loss(name);
    EXPECT_FALSE(loss->expects_class_labels()) << name;
    EXPECT_EQ(loss->describe(), "MSELoss");
  }
  EXPECT_CONTAINS(kiln::testing::error_message([] { kiln::make_loss("hinge"); }),
                  "unknown loss 'hinge': expected cross-entropy (or ce) for class labels, mse");
}

TEST(Loss, ATargetOfTheOtherKindSaysWhichLossToUse) {
  const Tensor output = kiln::testing::random_tensor({3, 1}, 7);
  const Tensor labels = Tensor::from_vector(std::vector<std::int32_t>{0, 0, 0}, {3});
  const Tensor values = kiln::testing::random_tensor({3, 1}, 8);
  std::unique_ptr<kiln::Loss> mse = kiln::make_loss("mse");
  EXPECT_CONTAINS(
      kiln::testing::error_message([&] { mse->forward(output, labels); }),
      "MSELoss needs float targets, found class labels int32 (3,): use CrossEntropyLoss");
  EXPECT_EQ(mse->forward(output, values).shape(), Shape{});  // a scalar, as cross-entropy's
  std::unique_ptr<kiln::Loss> ce = kiln::make_loss("ce");
  EXPECT_CONTAINS(kiln::testing::error_message([&] { ce->forward(output, values); }),
                  "CrossEntropyLoss needs class labels (int32), found float targets float32 "
                  "(3, 1): use MSELoss");
  EXPECT_CONTAINS(kiln::testing::error_message([&] {
                    mse->forward(output, kiln::testing::random_tensor({3, 2}, 9));
                  }),
                  "MSELoss: the prediction is (3, 1) but the target (3, 2)");
  EXPECT_CONTAINS(
      kiln::testing::error_message([&] { kiln::check_loss_fits_targets(*mse, true, "CSV t.csv"); }),
      "MSELoss needs float targets, but CSV t.csv has class labels: use CrossEntropyLoss");
  EXPECT_NO_THROW(kiln::check_loss_fits_targets(*ce, true, "CSV t.csv"));
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
  const Tensor logits =
      Tensor::from_vector(std::vector<float>{0.1f, 0.9f, 0.8f, 0.2f, 0.3f, 0.3f}, {3, 2});
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

TEST(RunningMetrics, FloatTargetsKeepTheMeanLossAndHaveNoAccuracy) {
  kiln::RunningMetrics metrics;
  const Tensor output = kiln::testing::random_tensor({3, 1}, 11);
  const Tensor target = kiln::testing::random_tensor({3, 1}, 12);
  metrics.update(output, target, Tensor::from_vector(std::vector<float>{0.25f}, Shape{}));
  metrics.update(output.slice(0, 1), target.slice(0, 1),
                 Tensor::from_vector(std::vector<float>{1.25f}, Shape{}));
  const kiln::RunningMetrics::Values v = metrics.read();
  EXPECT_EQ(v.samples, 4);
  EXPECT_NEAR(v.mean_loss, (3 * 0.25 + 1.25) / 4, 1e-7);
  EXPECT_TRUE(std::isnan(v.accuracy));
  metrics.reset();  // the kind of target stays
  metrics.count(1);
  EXPECT_TRUE(std::isnan(metrics.read().accuracy));
}
