// kiln::bias_add and kiln::bias_grad on the CPU against naive double loops at odd sizes, on
// matrices and on higher-rank tensors whose last axis is the bias, and their shape errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kiln/core/ops.h"
#include "tests/support/error_testing.h"
#include "tests/support/tensor_testing.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::random_tensor;

using testing::error_message;

TEST(BiasAdd, AddsBiasToEveryRowAtOddSizes) {
  std::uint32_t seed = 100;
  for (std::int64_t rows : {1, 7, 33, 1000})
    for (std::int64_t cols : {1, 7, 33, 1000}) {
      SCOPED_TRACE(::testing::Message() << "rows " << rows << " cols " << cols);
      Tensor y = random_tensor(Shape{rows, cols}, seed++);
      const Tensor bias = random_tensor(Shape{cols}, seed++);
      const auto yv = y.to_vector<float>(), bv = bias.to_vector<float>();
      std::vector<float> expected(yv.size());
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < cols; ++c)
          expected[r * cols + c] = static_cast<float>(double(yv[r * cols + c]) + bv[c]);
      bias_add(y, bias);
      EXPECT_TRUE(all_close(y.to_vector<float>(), expected, 1e-6f, 0.0f));
    }
}

TEST(BiasAdd, TreatsLastAxisOfHigherRankTensorAsChannels) {
  Tensor y = random_tensor(Shape{3, 5, 7}, 1);
  const Tensor bias = random_tensor(Shape{7}, 2);
  const auto yv = y.to_vector<float>(), bv = bias.to_vector<float>();
  std::vector<float> expected(yv.size());
  for (std::size_t i = 0; i < yv.size(); ++i) expected[i] = yv[i] + bv[i % 7];
  bias_add(y, bias);
  EXPECT_TRUE(all_close(y.to_vector<float>(), expected, 1e-6f, 0.0f));
}

TEST(BiasGrad, AccumulatesColumnSumsIntoExistingGradient) {
  std::uint32_t seed = 200;
  for (std::int64_t rows : {1, 7, 33, 1000})
    for (std::int64_t cols : {1, 7, 33, 1000}) {
      SCOPED_TRACE(::testing::Message() << "rows " << rows << " cols " << cols);
      const Tensor dy = random_tensor(Shape{rows, cols}, seed++);
      Tensor dbias = random_tensor(Shape{cols}, seed++);
      const auto dyv = dy.to_vector<float>(), prior = dbias.to_vector<float>();
      std::vector<float> expected(prior.size());
      for (std::int64_t c = 0; c < cols; ++c) {
        double sum = prior[c];
        for (std::int64_t r = 0; r < rows; ++r) sum += dyv[r * cols + c];
        expected[c] = static_cast<float>(sum);
      }
      bias_grad(dy, dbias);
      EXPECT_TRUE(all_close(dbias.to_vector<float>(), expected, 1e-4f, 1e-5f));
    }
}

TEST(BiasGrad, SumsOverEveryLeadingAxisOfHigherRankTensor) {
  const Tensor dy = random_tensor(Shape{3, 5, 7}, 3);
  Tensor dbias = Tensor::zeros(Shape{7});
  const auto dyv = dy.to_vector<float>();
  std::vector<double> sums(7, 0.0);
  for (std::size_t i = 0; i < dyv.size(); ++i) sums[i % 7] += dyv[i];
  bias_grad(dy, dbias);
  EXPECT_TRUE(all_close(dbias.to_vector<float>(), std::vector<float>(sums.begin(), sums.end()),
                        1e-5f, 1e-6f));
}

TEST(BiasAdd, RejectsBiasWhoseLengthDiffersFromLastAxisNamingBoth) {
  Tensor y = random_tensor(Shape{7, 33}, 1);
  const Tensor bias = random_tensor(Shape{32}, 2);
  const std::string message = error_message([&] { bias_add(y, bias); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "y (7, 33)", message);
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "bias length 32", message);
}

TEST(BiasGrad, RejectsBiasThatIsNotAVector) {
  const Tensor dy = random_tensor(Shape{7, 33}, 1);
  Tensor dbias = Tensor::zeros(Shape{1, 33});
  const std::string message = error_message([&] { bias_grad(dy, dbias); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "bias must be a vector, found (1, 33)", message);
}

TEST(BiasAdd, RejectsIntegerBias) {
  Tensor y = random_tensor(Shape{7, 3}, 1);
  const Tensor bias = Tensor::zeros(Shape{3}, DType::i32);
  const std::string message = error_message([&] { bias_add(y, bias); });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "bias_add: bias must be", message);
}

}  // namespace
}  // namespace kiln
