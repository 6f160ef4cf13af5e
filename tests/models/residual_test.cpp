#include <gtest/gtest.h>

#include "kiln/layers/activations.h"
#include "kiln/layers/batch_norm2d.h"
#include "kiln/layers/conv2d.h"
#include "kiln/layers/flatten.h"
#include "kiln/layers/linear.h"
#include "kiln/models/residual.h"
#include "kiln/models/sequential.h"
#include "tests/support/gradient_check.h"
#include "tests/support/tensor_testing.h"

using kiln::Residual;
using kiln::Sequential;
using kiln::Shape;
using kiln::Tensor;

namespace {
// width -> 5 -> width, a fused Linear+ReLU inside.
std::shared_ptr<Sequential> mlp_body(kiln::Generator& gen, std::int64_t width) {
  auto body = std::make_shared<Sequential>();
  body->emplace<kiln::Linear>(width, 5, gen)
      .emplace<kiln::ReLU>()
      .emplace<kiln::Linear>(5, width, gen);
  return body;
}

// (N, 2, H, W) -> the same: a 3x3 convolution with padding 1, then batch normalisation.
std::shared_ptr<Sequential> conv_body(kiln::Generator& gen) {
  auto body = std::make_shared<Sequential>();
  body->emplace<kiln::Conv2d>(2, 2, 3, gen, kiln::Conv2dOptions{.padding = 1})
      .emplace<kiln::BatchNorm2d>(2);
  return body;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const kiln::Error& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST(Residual, ForwardAddsTheInputToTheBodysOutput) {
  kiln::Generator gen(1);
  const auto body = mlp_body(gen, 6);
  Residual block(body);
  const Tensor x = kiln::testing::random_tensor({3, 6}, 2);
  const std::vector<float> fx = body->forward(x).to_vector<float>(), xv = x.to_vector<float>();
  const std::vector<float> y = block.forward(x).to_vector<float>();
  ASSERT_EQ(y.size(), xv.size());
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_EQ(y[i], xv[i] + fx[i]) << i;
}

TEST(Residual, BackwardMatchesFiniteDifferencesWithALinearReluBody) {
  kiln::Generator gen(3);
  Residual alone(mlp_body(gen, 6));
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
      alone, kiln::testing::random_tensor({4, 6}, 4)));
  Sequential net;
  net.emplace<kiln::Linear>(7, 6, gen)
      .emplace<Residual>(mlp_body(gen, 6))
      .emplace<kiln::Linear>(6, 3, gen);
  // Step 1e-3: a bias of the first Linear moves every row's pre-activations in the body, and at the
  // default 1e-2 a few cross the ReLU's kink by too little for the checker to tell (a Tanh body
  // passes at 1e-2).
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
      net, kiln::testing::random_tensor({5, 7}, 5), {.step = 1e-3f}));
}

TEST(Residual, BackwardMatchesFiniteDifferencesWithAConvBatchNormBody) {
  kiln::Generator gen(6);
  Residual alone(conv_body(gen));
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
      alone, kiln::testing::random_tensor({2, 2, 4, 5}, 7)));
  Sequential net;
  net.emplace<kiln::Conv2d>(1, 2, 3, gen, kiln::Conv2dOptions{.padding = 1})
      .emplace<Residual>(conv_body(gen));
  net.emplace<kiln::Flatten>().emplace<kiln::Linear>(2 * 5 * 3, 3, gen);
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
      net, kiln::testing::random_tensor({3, 1, 5, 3}, 8)));
}

TEST(Residual, NamesTheBodysParametersUnderBody) {
  kiln::Generator gen(9);
  Sequential net;
  net.emplace<kiln::Linear>(4, 6, gen).emplace<Residual>(mlp_body(gen, 6));
  std::vector<std::string> names;
  for (const auto* p : net.parameters()) names.push_back(p->name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "layers.0.weight", "layers.0.bias", "layers.1.body.layers.0.weight",
                       "layers.1.body.layers.0.bias", "layers.1.body.layers.2.weight",
                       "layers.1.body.layers.2.bias"}));
}

TEST(Residual, RejectsABodyThatChangesTheShapeNamingBothShapes) {
  kiln::Generator gen(10);
  const std::string at_construction = error_of([&] {
    Residual block(std::make_shared<kiln::Linear>(6, 5, gen), Shape{3, 6});
  });
  EXPECT_NE(at_construction.find("an input of shape (3, 6) to an output of shape (3, 5)"),
            std::string::npos)
      << at_construction;
  Residual unchecked(std::make_shared<kiln::Linear>(6, 5, gen));
  const std::string at_forward = error_of([&] {
    unchecked.forward(kiln::testing::random_tensor({2, 6}, 11));
  });
  EXPECT_NE(at_forward.find("an input of shape (2, 6) to an output of shape (2, 5)"),
            std::string::npos)
      << at_forward;
  EXPECT_NE(error_of([&] { Residual block(nullptr); }).find("null"), std::string::npos);
}

TEST(Residual, DescribesItselfItsShapeAndItsRowInASummary) {
  kiln::Generator gen(12);
  auto block = std::make_shared<Residual>(mlp_body(gen, 6));
  EXPECT_EQ(block->describe(), "Residual(Sequential(3 layers))");
  EXPECT_EQ(block->output_shape(Shape{7, 6}), (Shape{7, 6}));
  Sequential net;
  net.emplace<kiln::Linear>(4, 6, gen).add(block).emplace<kiln::Linear>(6, 2, gen);
  const std::string summary = net.summary({1, 4});
  const std::int64_t block_parameters = 6 * 5 + 5 + 5 * 6 + 6;
  EXPECT_EQ(block->parameter_count(), block_parameters);
  EXPECT_NE(summary.find(fmt::format("{:<28} {:<20} {:>12}", "Residual(Sequential(3 layers))",
                                     "(1, 6)", block_parameters)),
            std::string::npos)
      << summary;
  EXPECT_NE(
      summary.find(fmt::format("total parameters: {}", 4 * 6 + 6 + block_parameters + 6 * 2 + 2)),
      std::string::npos)
      << summary;
}

// Without an input gradient wanted the block returns none and its body skips what it can, but
// every parameter gradient is the one a full backward makes.
TEST(Residual, WithoutAnInputGradientMakesTheSameParameterGradients) {
  auto build = [] {
    kiln::Generator gen(13);
    auto net = std::make_shared<Sequential>();
    net->emplace<Residual>(mlp_body(gen, 6)).emplace<kiln::Linear>(6, 2, gen);
    return net;
  };
  const auto full = build(), skipping = build();
  skipping->set_input_grad_wanted(false);
  const Tensor x = kiln::testing::random_tensor({5, 6}, 14),
               dy = kiln::testing::random_tensor({5, 2}, 15);
  full->forward(x);
  skipping->forward(x);
  EXPECT_TRUE(full->backward(dy).defined());
  EXPECT_FALSE(skipping->backward(dy).defined());
  EXPECT_TRUE(kiln::testing::same_gradients(*full, *skipping));
}
