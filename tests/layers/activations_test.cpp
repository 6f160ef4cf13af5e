#include <gtest/gtest.h>

#include "kiln/layers/activations.h"
#include "kiln/layers/flatten.h"
#include "tests/support/gradient_check.h"
#include "tests/support/tensor_testing.h"

using kiln::Tensor;

TEST(ActivationLayers, BackwardMatchesFiniteDifferences) {
  kiln::ReLU relu;
  kiln::LeakyReLU leaky(0.1f);
  kiln::Sigmoid sigmoid;
  kiln::Tanh tanh;
  kiln::GELU gelu;
  const Tensor x = kiln::testing::random_tensor({7, 33}, 21, -2.0f, 2.0f);
  for (kiln::Module* m :
       std::initializer_list<kiln::Module*>{&relu, &leaky, &sigmoid, &tanh, &gelu})
    EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(*m, x)) << m->describe();
}

TEST(ActivationLayers, ReluZeroesNegativesAndKeepsPositives) {
  kiln::ReLU relu;
  const auto y =
      relu.forward(Tensor::from_vector(std::vector<float>{-2.0f, -0.5f, 0.0f, 0.5f, 3.0f}, {5}))
          .to_vector<float>();
  EXPECT_EQ(y, (std::vector<float>{0.0f, 0.0f, 0.0f, 0.5f, 3.0f}));
  EXPECT_EQ(relu.describe(), "ReLU");
  EXPECT_EQ(kiln::LeakyReLU(0.2f).describe(), "LeakyReLU(0.2)");
}

TEST(Flatten, ViewsTrailingAxesAndRestoresTheGradientShape) {
  kiln::Flatten flatten;
  const Tensor x = kiln::testing::random_tensor({3, 1, 7, 5}, 4);
  const Tensor y = flatten.forward(x);
  EXPECT_EQ(y.shape(), (kiln::Shape{3, 35}));
  EXPECT_TRUE(y.shares_storage_with(x));
  EXPECT_EQ(flatten.backward(y).shape(), x.shape());
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(flatten, x));
}
