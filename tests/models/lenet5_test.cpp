// The lenet5 preset: its layers, parameter count and names, its input check, and a short
// overfitting run on the CPU (the convolution and pooling stack learns a small batch).
#include <gtest/gtest.h>

#include "kiln/core/ops.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/spec/model_spec.h"
#include "tests/support/tensor_testing.h"

using kiln::Shape;
using kiln::Tensor;

TEST(LeNet5, HasTheClassicLayersAndParameterCount) {
  kiln::Generator gen(1);
  const kiln::Model model = kiln::build_model("lenet5", {1, 28, 28}, 10, gen);
  EXPECT_EQ(model.input_shape, (Shape{1, 28, 28}));
  // conv 6·25+6, conv 16·6·25+16, fc 400·120+120, 120·84+84, 84·10+10
  EXPECT_EQ(model.net->parameter_count(), 61706);
  EXPECT_EQ(model.net->parameters().front()->name, "layers.0.weight");
  EXPECT_EQ(model.net->parameters().back()->name, "layers.11.bias");
  const std::string summary = model.sequential().summary({2, 1, 28, 28});
  EXPECT_NE(summary.find("(2, 6, 28, 28)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("(2, 16, 5, 5)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("(2, 400)"), std::string::npos) << summary;
  EXPECT_EQ(model.net->output_shape({2, 1, 28, 28}), (Shape{2, 10}));
}

TEST(LeNet5, RejectsDataThatIsNotOneChannel28By28) {
  kiln::Generator gen(1);
  try {
    kiln::build_model("lenet5", {784}, 10, gen);
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("1x28x28"), std::string::npos) << m;
    EXPECT_NE(m.find("(784,)"), std::string::npos) << m;
  }
  EXPECT_THROW(kiln::build_model("lenet5", {3, 28, 28}, 10, gen), kiln::Error);
}

TEST(LeNet5, OverfitsASmallBatch) {
  kiln::Generator gen(2);
  const kiln::Model model = kiln::build_model("lenet5", {1, 28, 28}, 10, gen);
  kiln::Sequential& net = model.sequential();
  const Tensor x = kiln::testing::random_tensor({8, 1, 28, 28}, 3);
  const Tensor labels = kiln::testing::random_labels(8, 10, 4);
  kiln::CrossEntropyLoss loss;
  std::vector<Tensor> velocity;
  for (auto* p : net.parameters()) velocity.push_back(Tensor::zeros(p->value.shape()));
  float first = 0.0f, last = 0.0f;
  for (int step = 0; step < 60; ++step) {
    net.zero_grad();
    last = loss.forward(net.forward(x), labels).item();
    if (step == 0) first = last;
    net.backward(loss.backward());
    std::size_t i = 0;
    for (auto* p : net.parameters()) {  // SGD with momentum 0.9, written out with core ops
      kiln::scale(velocity[i], 0.9f);
      kiln::axpy(1.0f, p->grad, velocity[i]);
      kiln::axpy(-0.05f, velocity[i++], p->value);
    }
  }
  EXPECT_GT(first, 1.8f);  // about ln 10
  EXPECT_LT(last, 0.1f);
}
