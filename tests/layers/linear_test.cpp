#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kiln/core/ops.h"
#include "kiln/layers/activations.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/linear.h"
#include "tests/support/gradient_check.h"
#include "tests/support/tensor_testing.h"

using kiln::Linear;
using kiln::Shape;
using kiln::Tensor;

TEST(Linear, ForwardMatchesANaiveLoop) {
  kiln::Generator gen(3);
  Linear layer(33, 7, gen);
  const Tensor x = kiln::testing::random_tensor({5, 33}, 1);
  const auto y = layer.forward(x).to_vector<float>();
  const auto xv = x.to_vector<float>();
  const auto w = layer.weight().value.to_vector<float>();
  const auto b = layer.bias()->value.to_vector<float>();
  std::vector<float> expected(5 * 7);
  for (int n = 0; n < 5; ++n)
    for (int o = 0; o < 7; ++o) {
      double s = b[o];
      for (int i = 0; i < 33; ++i) s += static_cast<double>(xv[n * 33 + i]) * w[o * 33 + i];
      expected[n * 7 + o] = static_cast<float>(s);
    }
  EXPECT_TRUE(kiln::testing::all_close(y, expected, 1e-5f, 1e-6f));
}

TEST(Linear, InitialisesLikePyTorchWithinOneOverSqrtFanIn) {
  kiln::Generator gen(11);
  Linear layer(1000, 33, gen);
  const float bound = 1.0f / std::sqrt(1000.0f);
  float largest = 0.0f;
  for (float v : layer.weight().value.to_vector<float>()) largest = std::max(largest, std::abs(v));
  EXPECT_LE(largest, bound);
  EXPECT_GT(largest, 0.9f * bound);  // 33,000 draws reach close to the bound
  for (float v : layer.bias()->value.to_vector<float>()) EXPECT_LE(std::abs(v), bound);
}

TEST(Linear, BackwardMatchesFiniteDifferences) {
  kiln::Generator gen(5);
  Linear layer(7, 3, gen);
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
      layer, kiln::testing::random_tensor({4, 7}, 2)));
  Linear no_bias(7, 1, gen, false);
  EXPECT_EQ(no_bias.parameters().size(), 1u);
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
      no_bias, kiln::testing::random_tensor({1, 7}, 4)));
}

TEST(Linear, BackwardAccumulatesIntoParameterGradients) {
  kiln::Generator gen(9);
  Linear layer(7, 5, gen);
  const Tensor x = kiln::testing::random_tensor({3, 7}, 8);
  const Tensor dy = kiln::testing::random_tensor({3, 5}, 9);
  layer.zero_grad();
  layer.forward(x);
  layer.backward(dy);
  const auto once = layer.weight().grad.to_vector<float>();
  layer.forward(x);
  layer.backward(dy);
  auto twice = layer.weight().grad.to_vector<float>();
  for (auto& g : twice) g /= 2.0f;
  EXPECT_TRUE(kiln::testing::all_close(twice, once, 1e-6f, 1e-7f));
}

TEST(Linear, RejectsAWrongInputWidthNamingBoth) {
  kiln::Generator gen(1);
  Linear layer(784, 10, gen);
  try {
    layer.forward(Tensor::zeros({2, 783}));
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("(batch, 784)"), std::string::npos) << m;
    EXPECT_NE(m.find("(2, 783)"), std::string::npos) << m;
  }
}

TEST(Linear, RejectsBackwardBeforeForwardAndAWrongGradientShape) {
  kiln::Generator gen(1);
  Linear layer(7, 3, gen);
  try {
    layer.backward(Tensor::zeros({2, 3}));
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("backward called before forward"), std::string::npos);
  }
  layer.forward(Tensor::zeros({2, 7}));
  EXPECT_THROW(layer.backward(Tensor::zeros({2, 4})), kiln::Error);
}

TEST(Linear, WithAFusedReluComputesTheReluOfThePlainLinear) {
  kiln::Generator plain_gen(12), fused_gen(12);
  Linear plain(3, 4, plain_gen);
  Linear fused(3, 4, fused_gen, kiln::LinearOptions{.activation = kiln::Activation::relu});
  EXPECT_EQ(fused.describe(), "Linear(3 -> 4, ReLU)");
  const Tensor x = kiln::testing::random_tensor({8, 3}, 14);
  const auto y = plain.forward(x).to_vector<float>();
  EXPECT_TRUE(std::any_of(y.begin(), y.end(), [](float v) { return v < 0.0f; }))
      << "nothing for the ReLU to do";
  const auto relu_y = fused.forward(x).to_vector<float>();
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_EQ(relu_y[i], std::max(y[i], 0.0f));
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
      fused, kiln::testing::random_tensor({5, 3}, 15)));
}

TEST(Linear, RefusesToFuseAnActivationOtherThanRelu) {
  kiln::Generator gen(13);
  try {
    Linear layer(3, 4, gen, kiln::LinearOptions{.activation = kiln::Activation::sigmoid});
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("only a ReLU fuses into a Linear, found Sigmoid"),
              std::string::npos)
        << e.what();
  }
}

// A Linear takes on the module after it by what that module says it computes
// (Module::elementwise_activation), once: a ReLU, not another activation nor a non-activation.
TEST(Linear, AbsorbsTheModuleAfterItOnlyWhenThatSaysItIsAReluAndOnlyOnce) {
  kiln::Generator gen(16);
  Linear layer(3, 4, gen);
  EXPECT_FALSE(layer.absorb(kiln::Sigmoid()));
  EXPECT_FALSE(layer.absorb(kiln::Dropout(0.5f, 17)));
  EXPECT_EQ(kiln::ReLU().elementwise_activation(), kiln::Activation::relu);
  EXPECT_EQ(kiln::Dropout(0.5f, 17).elementwise_activation(), std::nullopt);
  EXPECT_TRUE(layer.absorb(kiln::ReLU()));
  EXPECT_FALSE(layer.absorb(kiln::ReLU()));
}
