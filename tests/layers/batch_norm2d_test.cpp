// BatchNorm2d: BatchNorm1d's numbers on the (N, C, H·W) view, bit for bit, in training and eval;
// gradients; the error for an input that is not a batch of images.
#include <gtest/gtest.h>

#include "kiln/core/ops.h"
#include "kiln/layers/batch_norm2d.h"
#include "tests/support/gradient_check.h"
#include "tests/support/tensor_testing.h"

using kiln::Shape;
using kiln::Tensor;

TEST(BatchNorm2d, ComputesWhatBatchNorm1dDoesOnTheChannelsByPixelsView) {
  kiln::BatchNorm2d images(3);
  kiln::BatchNorm1d rows(3);
  const Tensor x = kiln::testing::random_tensor({2, 3, 4, 5}, 1, -2.0f, 2.0f);
  const Tensor dy = kiln::testing::random_tensor({2, 3, 4, 5}, 2);
  for (const bool training : {true, false}) {
    SCOPED_TRACE(training ? "train" : "eval");
    images.train(training);
    rows.train(training);
    const Tensor& y = images.forward(x);
    EXPECT_EQ(y.shape(), x.shape());
    EXPECT_EQ(y.to_vector<float>(), rows.forward(x.view({2, 3, 20})).to_vector<float>());
    EXPECT_EQ(images.running_mean().to_vector<float>(), rows.running_mean().to_vector<float>());
    EXPECT_EQ(images.running_var().to_vector<float>(), rows.running_var().to_vector<float>());
  }
  images.train();
  rows.train();
  images.forward(x);
  rows.forward(x.view({2, 3, 20}));
  const Tensor dx = images.backward(dy);
  EXPECT_EQ(dx.shape(), x.shape());
  EXPECT_EQ(dx.to_vector<float>(), rows.backward(dy.view({2, 3, 20})).to_vector<float>());
  EXPECT_EQ(images.weight().grad.to_vector<float>(), rows.weight().grad.to_vector<float>());
  EXPECT_EQ(images.bias().grad.to_vector<float>(), rows.bias().grad.to_vector<float>());
}

TEST(BatchNorm2d, BackwardMatchesFiniteDifferences) {
  kiln::BatchNorm2d bn(2);
  kiln::copy(kiln::testing::random_tensor({2}, 3, 0.5f, 1.5f), bn.weight().value);
  kiln::copy(kiln::testing::random_tensor({2}, 4), bn.bias().value);
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
      bn, kiln::testing::random_tensor({3, 2, 3, 2}, 5, -2.0f, 2.0f)));
}

TEST(BatchNorm2d, RejectsAnInputThatIsNotABatchOfImagesNamingIt) {
  kiln::BatchNorm2d bn(4);
  try {
    bn.forward(Tensor::zeros({2, 4, 9}));
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "BatchNorm2d(4, eps 1e-05, momentum 0.1): expected an input of shape "
                  "(batch, 4, height, width), found (2, 4, 9)"),
              std::string::npos)
        << e.what();
  }
}
