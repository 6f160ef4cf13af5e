// kiln::softmax, log_softmax and the fused softmax cross-entropy on the CPU against
// double-precision formulas at odd sizes, with and without label smoothing; stability on huge
// logits; the backward pass against central differences of the loss; and the label errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kiln/core/ops.h"
#include "tests/support/error_testing.h"
#include "tests/support/tensor_testing.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::random_labels;
using testing::random_tensor;

using testing::error_message;

// log_softmax of each row of a (rows, cols) vector, in double.
std::vector<double> reference_log_softmax(const std::vector<float>& x, std::int64_t cols) {
  std::vector<double> out(x.size());
  for (std::size_t r = 0; r * cols < x.size(); ++r) {
    double m = x[r * cols];
    for (std::int64_t c = 0; c < cols; ++c) m = std::max(m, double(x[r * cols + c]));
    double sum = 0.0;
    for (std::int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - m);
    for (std::int64_t c = 0; c < cols; ++c) out[r * cols + c] = x[r * cols + c] - m - std::log(sum);
  }
  return out;
}

struct CrossEntropy {
  std::vector<float> probs, losses, dlogits;
};

// Probabilities, per-row losses and grad_scale * (probs - target), in double.
CrossEntropy reference_cross_entropy(const Tensor& logits, const Tensor& labels, float eps,
                                     float grad_scale) {
  const std::int64_t rows = logits.size(0), cols = logits.size(1);
  const auto log_p = reference_log_softmax(logits.to_vector<float>(), cols);
  const auto lv = labels.to_vector<std::int32_t>();
  CrossEntropy out;
  for (std::int64_t r = 0; r < rows; ++r) {
    double loss = 0.0;
    for (std::int64_t c = 0; c < cols; ++c) {
      const double target = (c == lv[r] ? 1.0 - eps : 0.0) + double(eps) / cols;
      const double p = std::exp(log_p[r * cols + c]);
      loss -= target * log_p[r * cols + c];
      out.probs.push_back(static_cast<float>(p));
      out.dlogits.push_back(static_cast<float>(grad_scale * (p - target)));
    }
    out.losses.push_back(static_cast<float>(loss));
  }
  return out;
}

const Shape kShapes[] = {Shape{1, 1},     Shape{1, 7},    Shape{7, 33}, Shape{1000, 7},
                         Shape{33, 1000}, Shape{2000, 33}};  // the last runs multithreaded

TEST(Softmax, MatchesDoubleFormulaAndRowsSumToOne) {
  std::uint32_t seed = 800;
  for (const Shape& shape : kShapes) {
    SCOPED_TRACE(shape.str());
    const Tensor x = random_tensor(shape, seed++, -8.0f, 8.0f);
    Tensor y = Tensor::empty(shape);
    softmax(x, y);
    std::vector<float> expected;
    for (double l : reference_log_softmax(x.to_vector<float>(), shape[1]))
      expected.push_back(static_cast<float>(std::exp(l)));
    EXPECT_TRUE(all_close(y.to_vector<float>(), expected, 1e-5f, 1e-7f));
    const auto yv = y.to_vector<float>();
    for (std::int64_t r = 0; r < shape[0]; ++r) {
      double sum = 0.0;
      for (std::int64_t c = 0; c < shape[1]; ++c) sum += yv[r * shape[1] + c];
      ASSERT_NEAR(sum, 1.0, 1e-5) << "row " << r;
    }
  }
}

TEST(LogSoftmax, MatchesDoubleFormula) {
  std::uint32_t seed = 900;
  for (const Shape& shape : kShapes) {
    SCOPED_TRACE(shape.str());
    const Tensor x = random_tensor(shape, seed++, -8.0f, 8.0f);
    Tensor y = Tensor::empty(shape);
    log_softmax(x, y);
    const auto ref = reference_log_softmax(x.to_vector<float>(), shape[1]);
    EXPECT_TRUE(
        all_close(y.to_vector<float>(), std::vector<float>(ref.begin(), ref.end()), 1e-5f, 1e-6f));
  }
}

TEST(Softmax, StaysFiniteOnHugeLogits) {
  const Tensor x = Tensor::from_vector(
      std::vector<float>{1000.0f, -1000.0f, 999.0f, -3e38f, 3e38f, 0.0f}, Shape{2, 3});
  Tensor y = Tensor::empty(Shape{2, 3}), log_y = Tensor::empty(Shape{2, 3});
  softmax(x, y);
  log_softmax(x, log_y);
  const float e = static_cast<float>(1.0 / (1.0 + std::exp(-1.0)));
  EXPECT_TRUE(all_close(y.to_vector<float>(), {e, 0.0f, 1.0f - e, 0.0f, 1.0f, 0.0f}, 1e-6f, 1e-7f));
  for (float v : log_y.to_vector<float>()) EXPECT_FALSE(std::isnan(v));
}

TEST(Softmax, NormalisesLastAxisOfHigherRankTensor) {
  const Tensor x = random_tensor(Shape{3, 5, 7}, 4);
  Tensor y = Tensor::empty(Shape{3, 5, 7});
  softmax(x, y);
  std::vector<float> expected;
  for (double l : reference_log_softmax(x.to_vector<float>(), 7))
    expected.push_back(static_cast<float>(std::exp(l)));
  EXPECT_TRUE(all_close(y.to_vector<float>(), expected, 1e-5f, 1e-7f));
}

TEST(SoftmaxCrossEntropy, ForwardAndBackwardMatchDoubleFormulaWithAndWithoutSmoothing) {
  std::uint32_t seed = 1000;
  for (float eps : {0.0f, 0.1f})
    for (const Shape& shape : kShapes) {
      SCOPED_TRACE(::testing::Message() << shape.str() << " smoothing " << eps);
      const std::int64_t rows = shape[0];
      const Tensor logits = random_tensor(shape, seed++, -8.0f, 8.0f);
      const Tensor labels = random_labels(rows, static_cast<std::int32_t>(shape[1]), seed++);
      Tensor probs = Tensor::empty(shape), losses = Tensor::empty(Shape{rows});
      Tensor dlogits = Tensor::full(shape, 7.0f);  // overwritten, not accumulated
      const float grad_scale = 1.0f / static_cast<float>(rows);
      softmax_cross_entropy_forward(logits, labels, probs, losses, eps);
      softmax_cross_entropy_backward(probs, labels, dlogits, grad_scale, eps);
      const CrossEntropy ref = reference_cross_entropy(logits, labels, eps, grad_scale);
      EXPECT_TRUE(all_close(probs.to_vector<float>(), ref.probs, 1e-5f, 1e-7f));
      EXPECT_TRUE(all_close(losses.to_vector<float>(), ref.losses, 1e-5f, 1e-6f));
      EXPECT_TRUE(all_close(dlogits.to_vector<float>(), ref.dlogits, 1e-5f, 1e-7f));
    }
}

TEST(SoftmaxCrossEntropy, BackwardIsGradientOfMeanLossByCentralDifferences) {
  constexpr std::int64_t rows = 3, cols = 5;
  constexpr float eps = 0.1f, h = 1e-2f;
  const Tensor logits = random_tensor(Shape{rows, cols}, 11, -2.0f, 2.0f);
  const Tensor labels = random_labels(rows, cols, 12);
  Tensor probs = Tensor::empty(Shape{rows, cols}), losses = Tensor::empty(Shape{rows});
  auto mean_loss = [&](const std::vector<float>& x) {
    softmax_cross_entropy_forward(Tensor::from_vector(x, Shape{rows, cols}), labels, probs, losses,
                                  eps);
    double sum = 0.0;
    for (float l : losses.to_vector<float>()) sum += l;
    return sum / rows;
  };
  const std::vector<float> x = logits.to_vector<float>();
  std::vector<float> numeric(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::vector<float> plus(x), minus(x);
    plus[i] += h, minus[i] -= h;
    numeric[i] = static_cast<float>((mean_loss(plus) - mean_loss(minus)) / (2.0 * h));
  }
  mean_loss(x);
  Tensor dlogits = Tensor::empty(Shape{rows, cols});
  softmax_cross_entropy_backward(probs, labels, dlogits, 1.0f / rows, eps);
  EXPECT_TRUE(all_close(dlogits.to_vector<float>(), numeric, 1e-3f, 1e-4f));
}

TEST(SoftmaxCrossEntropy, ForwardRejectsOutOfRangeLabelNamingValueAndSample) {
  const Tensor logits = random_tensor(Shape{7, 10}, 1);
  std::vector<std::int32_t> lv = random_labels(7, 10, 2).to_vector<std::int32_t>();
  lv[4] = 12;
  const Tensor labels = Tensor::from_vector(lv, Shape{7});
  Tensor probs = Tensor::empty(Shape{7, 10}), losses = Tensor::empty(Shape{7});
  const std::string message =
      error_message([&] { softmax_cross_entropy_forward(logits, labels, probs, losses); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "[0, 10)", message);
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "found 12 at sample 4", message);
}

TEST(SoftmaxCrossEntropy, ForwardRejectsNegativeLabelNamingFirstBadSample) {
  const Tensor logits = random_tensor(Shape{33, 7}, 1);
  std::vector<std::int32_t> lv = random_labels(33, 7, 2).to_vector<std::int32_t>();
  lv[31] = -1;
  lv[32] = 7;
  const Tensor labels = Tensor::from_vector(lv, Shape{33});
  Tensor probs = Tensor::empty(Shape{33, 7}), losses = Tensor::empty(Shape{33});
  const std::string message =
      error_message([&] { softmax_cross_entropy_forward(logits, labels, probs, losses); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "found -1 at sample 31", message);
}

TEST(SoftmaxCrossEntropy, ForwardRejectsLabelsWhoseBatchSizeDiffersFromLogits) {
  const Tensor logits = random_tensor(Shape{7, 10}, 1), labels = random_labels(6, 10, 2);
  Tensor probs = Tensor::empty(Shape{7, 10}), losses = Tensor::empty(Shape{7});
  const std::string message =
      error_message([&] { softmax_cross_entropy_forward(logits, labels, probs, losses); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "labels (6,)", message);
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "logits (7, 10)", message);
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "batch sizes differ", message);
}

TEST(SoftmaxCrossEntropy, BackwardRejectsFloatLabels) {
  const Tensor probs = random_tensor(Shape{7, 10}, 1), labels = random_tensor(Shape{7}, 2);
  Tensor dlogits = Tensor::empty(Shape{7, 10});
  const std::string message =
      error_message([&] { softmax_cross_entropy_backward(probs, labels, dlogits, 1.0f); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "labels must be", message);
}

TEST(Softmax, RejectsOutputOfDifferentShapeNamingBoth) {
  const Tensor x = random_tensor(Shape{7, 33}, 1);
  Tensor y = Tensor::empty(Shape{7, 32});
  const std::string message = error_message([&] { softmax(x, y); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "x has shape (7, 33) but y has shape (7, 32)",
                      message);
}

}  // namespace
}  // namespace kiln
