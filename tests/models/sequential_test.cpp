#include <gtest/gtest.h>

#include <algorithm>

#include "kiln/core/ops.h"
#include "kiln/layers/activations.h"
#include "kiln/layers/conv2d.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/layers/flatten.h"
#include "kiln/layers/gradient_ready_hook.h"
#include "kiln/layers/linear.h"
#include "kiln/models/sequential.h"
#include "tests/support/gradient_check.h"
#include "tests/support/tensor_testing.h"

using kiln::Sequential;
using kiln::Tensor;

namespace {
// The article's network: 784 -> 1024 -> 1024 -> 1024 -> 1024 -> 10, ReLU between.
std::shared_ptr<Sequential> article_network(kiln::Generator& gen) {
  auto net = std::make_shared<Sequential>();
  const std::int64_t widths[] = {784, 1024, 1024, 1024, 1024, 10};
  for (int i = 0; i < 5; ++i) {
    net->emplace<kiln::Linear>(widths[i], widths[i + 1], gen);
    if (i < 4) net->emplace<kiln::ReLU>();
  }
  return net;
}
}  // namespace

TEST(Sequential, NamesParametersByLayerIndexAsPyTorchDoes) {
  kiln::Generator gen(1);
  Sequential net;
  net.emplace<kiln::Linear>(4, 3, gen).emplace<kiln::ReLU>().emplace<kiln::Linear>(3, 2, gen);
  std::vector<std::string> names;
  for (auto* p : net.parameters()) names.push_back(p->name);
  EXPECT_EQ(names, (std::vector<std::string>{"layers.0.weight", "layers.0.bias", "layers.2.weight",
                                             "layers.2.bias"}));
  EXPECT_EQ(net.parameter_count(), 4 * 3 + 3 + 3 * 2 + 2);
}

TEST(Sequential, BackwardMatchesFiniteDifferences) {
  kiln::Generator gen(2);
  Sequential net;
  net.emplace<kiln::Linear>(7, 5, gen).emplace<kiln::Tanh>().emplace<kiln::Linear>(5, 3, gen);
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
      net, kiln::testing::random_tensor({4, 7}, 3)));
}

TEST(Sequential, SummarisesTheArticleNetwork) {
  kiln::Generator gen(3);
  const auto owner = article_network(gen);
  Sequential& net = *owner;
  EXPECT_EQ(net.parameter_count(), 784 * 1024 + 3 * 1024 * 1024 + 1024 * 10 + 4 * 1024 + 10);
  const std::string summary = net.summary({1, 784});
  EXPECT_NE(summary.find("Linear(784 -> 1024)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("(1, 10)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("total parameters: 3962890"), std::string::npos) << summary;
}

TEST(Sequential, ArticleNetworkOverfitsASmallBatch) {
  kiln::Generator gen(4);
  const auto owner = article_network(gen);
  Sequential& net = *owner;
  const Tensor x = kiln::testing::random_tensor({16, 784}, 5);
  const Tensor y = kiln::testing::random_labels(16, 10, 6);
  kiln::CrossEntropyLoss loss;
  std::vector<Tensor> velocity;
  for (auto* p : net.parameters()) velocity.push_back(Tensor::zeros(p->value.shape()));
  float first = 0.0f, last = 0.0f;
  for (int step = 0; step < 45; ++step) {
    net.zero_grad();
    const float value = loss.forward(net.forward(x), y).item();
    if (step == 0) first = value;
    last = value;
    net.backward(loss.backward());
    std::size_t i = 0;
    for (auto* p : net.parameters()) {  // SGD with momentum 0.9, written out with core ops
      kiln::scale(velocity[i], 0.9f);
      kiln::axpy(1.0f, p->grad, velocity[i]);
      kiln::axpy(-0.05f, velocity[i++], p->value);
    }
  }
  EXPECT_GT(first, 1.5f);  // about ln 10 at the start
  EXPECT_LT(last, 0.05f);  // the whole stack learned the 16 labels
}

TEST(Sequential, RejectsAnInputOnAnotherDeviceOrInEvalBackward) {
  kiln::Generator gen(5);
  Sequential net;
  net.emplace<kiln::Linear>(3, 2, gen);
  net.eval();
  net.forward(kiln::testing::random_tensor({1, 3}, 1));
  try {
    net.backward(Tensor::zeros({1, 2}));
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("eval mode"), std::string::npos) << e.what();
  }
}

TEST(Sequential, FusedLinearReluMatchesTheLayersRunOneByOne) {
  kiln::Generator gen(6);
  Sequential net;
  net.emplace<kiln::Linear>(7, 5, gen).emplace<kiln::ReLU>().emplace<kiln::Linear>(5, 3, gen);
  const Tensor x = kiln::testing::random_tensor({4, 7}, 7),
               dy = kiln::testing::random_tensor({4, 3}, 8);
  auto gradients = [&] {
    std::vector<std::vector<float>> all;
    for (auto* p : net.parameters()) all.push_back(p->grad.to_vector<float>());
    return all;
  };
  net.zero_grad();
  const std::vector<float> fused_y = net.forward(x).to_vector<float>();
  const std::vector<float> fused_dx = net.backward(dy).to_vector<float>();
  const auto fused_grads = gradients();

  // The same parameters in modules of their own, each through its own forward and backward.
  kiln::Generator same(6);
  kiln::Linear first(7, 5, same);
  kiln::ReLU relu;
  kiln::Linear second(5, 3, same);
  const Tensor y = second.forward(relu.forward(first.forward(x))).clone();
  const Tensor dx = first.backward(relu.backward(second.backward(dy))).clone();
  EXPECT_TRUE(kiln::testing::all_close(fused_y, y.to_vector<float>(), 1e-6f, 1e-6f));
  EXPECT_TRUE(kiln::testing::all_close(fused_dx, dx.to_vector<float>(), 1e-6f, 1e-6f));
  std::vector<std::vector<float>> grads;
  for (kiln::Linear* layer : {&first, &second})
    for (auto* p : layer->parameters()) grads.push_back(p->grad.to_vector<float>());
  for (std::size_t i = 0; i < grads.size(); ++i)
    EXPECT_TRUE(kiln::testing::all_close(fused_grads[i], grads[i], 1e-6f, 1e-6f))
        << "parameter " << i;
  const auto negatives =
      std::count_if(fused_y.begin(), fused_y.end(), [](float v) { return v < 0.0f; });
  EXPECT_GT(negatives, 0) << "the last Linear has no ReLU after it";
}

TEST(Sequential, FusedLinearReluBackwardMatchesFiniteDifferences) {
  kiln::Generator gen(7);
  Sequential net;
  net.emplace<kiln::Linear>(7, 6, gen).emplace<kiln::ReLU>().emplace<kiln::Linear>(6, 3, gen);
  net.emplace<kiln::ReLU>();  // a fused ReLU at the very end too
  // Inputs whose pre-activations stay clear of 0 by more than the checker's step: with two ReLUs
  // in a row some inputs (seeds 12, 13) put a kink inside a difference that the checker cannot
  // tell from a slope, and then the same net unfused (LeakyReLU(0)) fails there alike.
  for (std::uint32_t seed : {10u, 11u})
    EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
        net, kiln::testing::random_tensor({5, 7}, seed)));
}

TEST(Sequential, GradientReadyHookSeesEveryLayerFusedOrNot) {
  kiln::Generator gen(8);
  Sequential net;
  net.emplace<kiln::Linear>(4, 3, gen).emplace<kiln::ReLU>().emplace<kiln::Linear>(3, 2, gen);
  std::vector<std::string> seen;
  kiln::set_gradient_ready_hook(net,
                                [&](kiln::Module& layer) { seen.push_back(layer.describe()); });
  net.forward(kiln::testing::random_tensor({2, 4}, 10));
  net.backward(kiln::testing::random_tensor({2, 2}, 11));
  // The fused ReLU is reported once the Linear that computed it is done.
  EXPECT_EQ(seen, (std::vector<std::string>{"Linear(3 -> 2)", "Linear(4 -> 3)", "ReLU"}));
}

// A ReLU after a nested Sequential that ends in a Linear runs in that Linear, as in a flat list:
// PyTorch's names, and the flat network's outputs and gradients, bit for bit.
TEST(Sequential, FusesAReluIntoTheLinearEndingANestedSequential) {
  const Tensor x = kiln::testing::random_tensor({4, 7}, 20),
               dy = kiln::testing::random_tensor({4, 3}, 21);
  kiln::Generator flat_gen(9), nested_gen(9);
  Sequential flat;
  flat.emplace<kiln::Linear>(7, 5, flat_gen)
      .emplace<kiln::ReLU>()
      .emplace<kiln::Linear>(5, 3, flat_gen);
  auto inner = std::make_shared<Sequential>();
  inner->emplace<kiln::Linear>(7, 5, nested_gen);
  Sequential nested;
  nested.add(inner).emplace<kiln::ReLU>().emplace<kiln::Linear>(5, 3, nested_gen);
  std::vector<std::string> names;
  for (auto* p : nested.parameters()) names.push_back(p->name);
  EXPECT_EQ(names, (std::vector<std::string>{"layers.0.layers.0.weight", "layers.0.layers.0.bias",
                                             "layers.2.weight", "layers.2.bias"}));
  EXPECT_EQ(flat.forward(x).to_vector<float>(), nested.forward(x).to_vector<float>());
  EXPECT_EQ(flat.backward(dy).to_vector<float>(), nested.backward(dy).to_vector<float>());
  const auto a = flat.parameters(), b = nested.parameters();
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(a[i]->grad.to_vector<float>(), b[i]->grad.to_vector<float>());
  // The ReLU module itself never ran: it has no forward to take a backward of.
  EXPECT_THROW(nested[1].backward(Tensor::zeros({4, 5})), kiln::Error);
  // The inner list is closed now: a layer added after its Linear would run before the ReLU.
  try {
    inner->emplace<kiln::Tanh>();
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("add every layer before placing the Sequential"),
              std::string::npos)
        << e.what();
  }
}

TEST(Sequential, KeepsAReluAfterALinearThatAlreadyHasOne) {
  kiln::Generator gen(10);
  Sequential net;
  net.emplace<kiln::Linear>(3, 4, gen, kiln::LinearOptions{.activation = kiln::Activation::relu})
      .emplace<kiln::ReLU>();
  const Tensor x = kiln::testing::random_tensor({2, 3}, 22);
  const auto y = net.forward(x).to_vector<float>();
  EXPECT_EQ(y, net[0].forward(x).to_vector<float>());       // ReLU twice is ReLU once
  EXPECT_NO_THROW(net[1].backward(Tensor::zeros({2, 4})));  // the ReLU ran on its own
}

// Without an input gradient wanted, backward returns none, skips the leading parameter-free
// layers and the first layer's input-gradient product, and leaves every parameter gradient as a
// full backward makes it.
TEST(Sequential, WithoutAnInputGradientMakesTheSameParameterGradients) {
  for (const bool conv : {false, true}) {
    SCOPED_TRACE(conv ? "conv" : "mlp");
    auto build = [&] {
      kiln::Generator gen(5);
      auto net = std::make_unique<kiln::Sequential>();
      if (conv) {
        net->emplace<kiln::Conv2d>(2, 3, 3, gen)
            .emplace<kiln::ReLU>()
            .emplace<kiln::Flatten>()
            .emplace<kiln::Linear>(3 * 5 * 5, 4, gen);
      } else {
        net->emplace<kiln::ReLU>()
            .emplace<kiln::Linear>(7, 5, gen)
            .emplace<kiln::ReLU>()
            .emplace<kiln::Linear>(5, 3, gen);
      }
      return net;
    };
    const kiln::Tensor x =
        kiln::testing::random_tensor(conv ? kiln::Shape{2, 2, 7, 7} : kiln::Shape{6, 7}, 11);
    auto full = build(), skipping = build();
    skipping->set_input_grad_wanted(false);
    const kiln::Tensor y = full->forward(x);
    skipping->forward(x);
    const kiln::Tensor dy = kiln::testing::random_tensor(y.shape(), 12);
    EXPECT_TRUE(full->backward(dy).defined());
    EXPECT_FALSE(skipping->backward(dy).defined());
    EXPECT_TRUE(kiln::testing::same_gradients(*full, *skipping));
  }
}
