// The model specs: the presets' layers, parameter names (PyTorch's) and counts, MLP parsing, the
// error messages, and a short run in which the cnn preset learns a small image task.
#include <gtest/gtest.h>

#include <algorithm>

#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/optim/sgd.h"
#include "kiln/spec/model_spec.h"
#include "tests/support/error_testing.h"
#include "tests/support/tensor_testing.h"

namespace {
using kiln::Tensor;
using kiln::testing::error_message;
}  // namespace

TEST(ModelSpec, BuildsTheArticleNetworkWithPyTorchNames) {
  kiln::Generator gen(1);
  const kiln::Model m = kiln::build_model("article", {1, 28, 28}, 10, gen);
  EXPECT_EQ(m.input_shape, (kiln::Shape{784}));
  EXPECT_EQ(m.sequential().size(), 9u);  // five Linear, four ReLU
  EXPECT_EQ(m.net->parameters().front()->name, "layers.0.weight");
  EXPECT_EQ(m.net->parameters().back()->name, "layers.8.bias");
  std::int64_t weights = 0;
  for (auto* p : m.net->parameters())
    if (p->value.rank() == 2) weights += p->value.numel();
  EXPECT_EQ(weights, 3958784);  // the article's count
}

TEST(ModelSpec, ParsesMlpSpecs) {
  kiln::Generator gen(2);
  const kiln::Model m = kiln::build_model("mlp:784-512-256-10", {784}, 10, gen);
  EXPECT_EQ(m.sequential().size(), 5u);
  EXPECT_EQ(kiln::mlp_widths("mlp:3-4-5"), (std::vector<std::int64_t>{3, 4, 5}));
}

TEST(ModelSpec, ExplainsMismatchesAndUnknownNames) {
  kiln::Generator gen(3);
  EXPECT_NE(error_message([&] {
              kiln::build_model("mlp:100-10", {784}, 10, gen);
            }).find("first width is 784"),
            std::string::npos);
  EXPECT_NE(error_message([&] {
              kiln::build_model("mlp:784-7", {784}, 10, gen);
            }).find("last width is 10"),
            std::string::npos);
  EXPECT_NE(error_message([&] {
              kiln::build_model("resnet", {784}, 10, gen);
            }).find("unknown model 'resnet'"),
            std::string::npos);
  EXPECT_NE(error_message([&] { kiln::build_model("mlp:784-x-10", {784}, 10, gen); }).find("'x'"),
            std::string::npos);
}

TEST(ModelSpec, BuildsTheCnnPresetWithPyTorchNamesAndShapes) {
  kiln::Generator gen(4);
  const kiln::Model m = kiln::build_model("cnn", {1, 28, 28}, 10, gen);
  EXPECT_EQ(m.input_shape, (kiln::Shape{1, 28, 28}));
  std::vector<std::string> names;
  for (const kiln::Parameter* p : std::as_const(*m.net).parameters()) names.push_back(p->name);
  // Bias-free convolutions (the batch norms that follow would cancel a bias), as nn.Sequential
  // numbers them: conv, bn, relu, pool, conv, bn, relu, pool, flatten, linear, relu, dropout,
  // linear.
  EXPECT_EQ(names, (std::vector<std::string>{"layers.0.weight", "layers.1.weight", "layers.1.bias",
                                             "layers.4.weight", "layers.5.weight", "layers.5.bias",
                                             "layers.9.weight", "layers.9.bias", "layers.12.weight",
                                             "layers.12.bias"}));
  std::vector<std::string> buffers;
  for (const kiln::Buffer* b : std::as_const(*m.net).buffers()) buffers.push_back(b->name);
  EXPECT_EQ(buffers, (std::vector<std::string>{"layers.1.running_mean", "layers.1.running_var",
                                               "layers.5.running_mean", "layers.5.running_var"}));
  // conv 32·9, bn 2·32, conv 64·32·9, bn 2·64, fc 3136·128+128, fc 128·10+10
  EXPECT_EQ(m.net->parameter_count(), 421738);
  const std::string summary = m.sequential().summary({2, 1, 28, 28});
  EXPECT_NE(summary.find("(2, 32, 14, 14)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("(2, 64, 7, 7)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("(2, 3136)"), std::string::npos) << summary;
  EXPECT_EQ(kiln::build_model("cnn", {1, 28, 28}, 4, gen).net->output_shape({2, 1, 28, 28}),
            (kiln::Shape{2, 4}));
  EXPECT_NE(error_message([&] { kiln::build_model("cnn", {784}, 10, gen); }).find("1x28x28"),
            std::string::npos);
}

// A few hundred 28x28 images whose class is where a bright square sits (noise elsewhere): in two
// epochs the cnn's loss falls from ln 4, and in eval (running statistics, no dropout) it
// classifies images it has not seen.
TEST(ModelSpec, CnnPresetLearnsASmallImageTask) {
  constexpr std::int64_t kTrain = 256, kTest = 64, kBatch = 32, kClasses = 4;
  constexpr std::int64_t kSamples = kTrain + kTest;
  std::vector<float> pixels = kiln::testing::random_values(kSamples * 28 * 28, 5, 0.0f, 1.0f);
  std::vector<std::int32_t> labels(kSamples);
  for (std::int64_t i = 0; i < kSamples; ++i) {
    labels[i] = static_cast<std::int32_t>((i * 7) % kClasses);
    const std::int64_t top = 4 + 12 * (labels[i] / 2), left = 4 + 12 * (labels[i] % 2);
    for (std::int64_t r = top; r < top + 8; ++r)
      for (std::int64_t c = left; c < left + 8; ++c) pixels[i * 784 + r * 28 + c] += 0.5f;
  }
  const Tensor x = Tensor::from_vector(pixels, {kSamples, 1, 28, 28});
  const Tensor y = Tensor::from_vector(labels, {kSamples});
  kiln::Generator gen(6);
  const kiln::Model m = kiln::build_model("cnn", {1, 28, 28}, kClasses, gen);
  kiln::Sequential& net = m.sequential();
  kiln::Sgd sgd(net.parameters(), 0.01f, {.momentum = 0.9f});
  kiln::CrossEntropyLoss loss;
  std::vector<float> losses;
  for (int epoch = 0; epoch < 2; ++epoch)
    for (std::int64_t b = 0; b < kTrain; b += kBatch) {
      sgd.zero_grad();
      losses.push_back(
          loss.forward(net.forward(x.slice(b, b + kBatch)), y.slice(b, b + kBatch)).item());
      net.backward(loss.backward());
      sgd.step();
    }
  const std::size_t per_epoch = kTrain / kBatch;
  float last_epoch = 0.0f;
  for (std::size_t i = per_epoch; i < losses.size(); ++i) last_epoch += losses[i] / per_epoch;
  EXPECT_GT(losses.front(), 1.0f);  // about ln 4 = 1.39
  EXPECT_LT(last_epoch, 0.3f * losses.front()) << "first step " << losses.front();
  net.eval();
  const auto logits = net.forward(x.slice(kTrain, kSamples)).to_vector<float>();
  std::int64_t right = 0;
  for (std::int64_t i = 0; i < kTest; ++i) {
    const float* row = &logits[i * kClasses];
    right += std::max_element(row, row + kClasses) - row == labels[kTrain + i];
  }
  EXPECT_GE(right, kTest * 9 / 10);
}
