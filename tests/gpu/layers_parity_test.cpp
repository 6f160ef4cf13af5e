// Layer-level GPU parity: every layer, a small article network, LeNet-5 and both losses, built
// twice from the same seed, one copy moved to cuda:0; forward, backward, parameter gradients and
// buffers must match the CPU copy (1e-4 relative where GEMMs and convolutions sum).
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "kiln/core/ops.h"
#include "kiln/layers/activations.h"
#include "kiln/layers/batch_norm.h"
#include "kiln/layers/batch_norm2d.h"
#include "kiln/layers/causal_self_attention.h"
#include "kiln/layers/conv2d.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/flatten.h"
#include "kiln/layers/linear.h"
#include "kiln/layers/mse_loss.h"
#include "kiln/layers/pool2d.h"
#include "kiln/models/gpt.h"
#include "kiln/models/residual.h"
#include "kiln/models/sequential.h"
#include "kiln/spec/model_spec.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kGpu;
using testing::kReductionRtol;
using testing::on_gpu;
using testing::random_tensor;

// Builds a fresh module; called twice, it must give identical modules (seeded generators).
using Factory = std::function<std::shared_ptr<Module>()>;

// Runs forward and backward on both copies (twice, so a second step's reuse and accumulation
// are covered) and compares outputs, input gradients, parameter gradients and buffers.
void expect_layer_parity(const Factory& make, const Tensor& x, float rtol = kReductionRtol,
                         float atol = 1e-5f) {
  const auto cpu = make(), gpu = make();
  gpu->to(kGpu);
  ASSERT_EQ(gpu->parameters().front()->value.device(), kGpu) << cpu->describe();
  cpu->zero_grad();
  gpu->zero_grad();
  for (int step = 0; step < 2; ++step) {
    SCOPED_TRACE(::testing::Message() << cpu->describe() << " step " << step);
    const Tensor y = cpu->forward(x), y_g = gpu->forward(on_gpu(x));
    ASSERT_EQ(y_g.device(), kGpu);
    EXPECT_TRUE(all_close(y_g, y, rtol, atol)) << "forward";
    const Tensor dy = random_tensor(y.shape(), 4000 + step);
    const Tensor dx = cpu->backward(dy), dx_g = gpu->backward(on_gpu(dy));
    EXPECT_TRUE(all_close(dx_g, dx, rtol, atol)) << "input gradient";
    const auto params = cpu->parameters(), params_g = gpu->parameters();
    for (std::size_t i = 0; i < params.size(); ++i)
      EXPECT_TRUE(all_close(params_g[i]->grad, params[i]->grad, rtol, atol)) << params[i]->name;
    const auto buffers = cpu->buffers(), buffers_g = gpu->buffers();
    for (std::size_t i = 0; i < buffers.size(); ++i)
      EXPECT_TRUE(all_close(buffers_g[i]->value, buffers[i]->value, rtol, atol))
          << buffers[i]->name;
  }
}

// The same for a module with no parameters (activations, pooling, Flatten, Dropout).
void expect_stateless_parity(const Factory& make, const Tensor& x, float rtol, float atol) {
  const auto cpu = make(), gpu = make();
  gpu->to(kGpu);
  SCOPED_TRACE(cpu->describe());
  const Tensor y = cpu->forward(x), y_g = gpu->forward(on_gpu(x));
  EXPECT_TRUE(all_close(y_g, y, rtol, atol)) << "forward";
  const Tensor dy = random_tensor(y.shape(), 4100);
  EXPECT_TRUE(all_close(gpu->backward(on_gpu(dy)), cpu->backward(dy), rtol, atol)) << "backward";
}

TEST(LayersParity, LinearMatchesCpu) {
  KILN_REQUIRE_GPU();
  expect_layer_parity(
      [] {
        Generator g(1);
        return std::make_shared<Linear>(33, 7, g);
      },
      random_tensor({5, 33}, 4200));
}

TEST(LayersParity, ActivationsMatchCpu) {
  KILN_REQUIRE_GPU();
  const Tensor x = random_tensor({7, 33}, 4300, -3.0f, 3.0f);
  expect_stateless_parity([] { return std::make_shared<ReLU>(); }, x, 1e-5f, 1e-6f);
  expect_stateless_parity([] { return std::make_shared<LeakyReLU>(0.2f); }, x, 1e-5f, 1e-6f);
  expect_stateless_parity([] { return std::make_shared<Sigmoid>(); }, x, 1e-5f, 1e-6f);
  expect_stateless_parity([] { return std::make_shared<Tanh>(); }, x, 1e-5f, 1e-6f);
  expect_stateless_parity([] { return std::make_shared<GELU>(); }, x, 1e-5f, 1e-6f);
}

TEST(LayersParity, Conv2dMatchesCpu) {
  KILN_REQUIRE_GPU();
  expect_layer_parity(
      [] {
        Generator g(2);
        return std::make_shared<Conv2d>(3, 4, 3, g, Conv2dOptions{.stride = 2, .padding = 1});
      },
      random_tensor({2, 3, 7, 7}, 4400));
  expect_layer_parity(
      [] {
        Generator g(3);
        return std::make_shared<Conv2d>(2, 5, 5, g, Conv2dOptions{}, false);
      },
      random_tensor({3, 2, 9, 11}, 4401));
}

TEST(LayersParity, PoolingMatchesCpu) {
  KILN_REQUIRE_GPU();
  const Tensor x = random_tensor({2, 3, 7, 7}, 4500);
  expect_stateless_parity([] { return std::make_shared<MaxPool2d>(3, 2, 1); }, x, 1e-5f, 1e-6f);
  expect_stateless_parity([] { return std::make_shared<MaxPool2d>(2); }, x, 1e-5f, 1e-6f);
  expect_stateless_parity([] { return std::make_shared<AvgPool2d>(3, 2, 1); }, x, 1e-5f, 1e-6f);
}

TEST(LayersParity, BatchNorm1dMatchesCpuInTrainingAndEval) {
  KILN_REQUIRE_GPU();
  const auto make = [] { return std::make_shared<BatchNorm1d>(33); };
  expect_layer_parity(make, random_tensor({7, 33}, 4600, -2.0f, 4.0f));
  expect_layer_parity([] { return std::make_shared<BatchNorm1d>(5); },
                      random_tensor({3, 5, 17}, 4601));
  // Eval after a training step uses the running statistics on both devices.
  const auto cpu = make(), gpu = make();
  gpu->to(kGpu);
  const Tensor x = random_tensor({7, 33}, 4602, -2.0f, 4.0f);
  cpu->forward(x);
  gpu->forward(on_gpu(x));
  cpu->eval();
  gpu->eval();
  const Tensor probe = random_tensor({2, 33}, 4603);
  EXPECT_TRUE(all_close(gpu->forward(on_gpu(probe)), cpu->forward(probe), kReductionRtol, 1e-5f));
}

// Residual adds through the elementwise op, so it runs wherever its body does: a fused Linear+ReLU
// body and a Conv2d+BatchNorm2d one.
TEST(LayersParity, ResidualMatchesCpu) {
  KILN_REQUIRE_GPU();
  expect_layer_parity(
      [] {
        Generator g(4);
        auto body = std::make_shared<Sequential>();
        body->emplace<Linear>(33, 9, g).emplace<ReLU>().emplace<Linear>(9, 33, g);
        return std::make_shared<Residual>(body);
      },
      random_tensor({5, 33}, 4800));
  expect_layer_parity(
      [] {
        Generator g(5);
        auto body = std::make_shared<Sequential>();
        body->emplace<Conv2d>(3, 3, 3, g, Conv2dOptions{.padding = 1}).emplace<BatchNorm2d>(3);
        return std::make_shared<Residual>(body);
      },
      random_tensor({2, 3, 7, 7}, 4801));
}

TEST(LayersParity, BatchNorm2dMatchesCpuInTraining) {
  KILN_REQUIRE_GPU();
  expect_layer_parity([] { return std::make_shared<BatchNorm2d>(6); },
                      random_tensor({4, 6, 5, 7}, 4604, -2.0f, 4.0f));
}

TEST(LayersParity, DropoutDrawsTheSameMaskOnBothDevices) {
  KILN_REQUIRE_GPU();
  expect_stateless_parity([] { return std::make_shared<Dropout>(0.3f, 17); },
                          random_tensor({7, 33}, 4700), 0.0f, 0.0f);
}

TEST(LayersParity, FlattenMatchesCpu) {
  KILN_REQUIRE_GPU();
  expect_stateless_parity([] { return std::make_shared<Flatten>(); },
                          random_tensor({3, 2, 5, 7}, 4800), 0.0f, 0.0f);
}

TEST(LayersParity, SmallArticleNetworkMatchesCpu) {
  KILN_REQUIRE_GPU();
  expect_layer_parity(
      [] {
        Generator g(5);
        auto net = std::make_shared<Sequential>();
        net->emplace<Linear>(784, 65, g).emplace<ReLU>().emplace<Linear>(65, 33, g);
        net->emplace<ReLU>().emplace<Linear>(33, 10, g);
        return net;
      },
      random_tensor({9, 784}, 4900), kReductionRtol, 1e-4f);
}

TEST(LayersParity, LeNet5MatchesCpu) {
  KILN_REQUIRE_GPU();
  expect_layer_parity(
      [] {
        Generator g(6);
        return build_model("lenet5", {1, 28, 28}, 10, g).net;
      },
      random_tensor({4, 1, 28, 28}, 5000), kReductionRtol, 1e-4f);
}

// Token ids of (b, t) below `vocabulary`, as float32 (a token batch's x).
Tensor token_ids(std::int64_t b, std::int64_t t, std::int64_t vocabulary) {
  std::vector<float> ids(static_cast<std::size_t>(b * t));
  for (std::size_t i = 0; i < ids.size(); ++i)
    ids[i] = static_cast<float>((i * 7 + 3) % vocabulary);
  return Tensor::from_vector(ids, {b, t});
}

TEST(LayersParity, CausalSelfAttentionMatchesCpu) {
  KILN_REQUIRE_GPU();
  expect_layer_parity(
      [] {
        Generator g(8);
        return std::make_shared<CausalSelfAttention>(32, 4, 0.0f, g);
      },
      random_tensor({3, 17, 32}, 5100), kReductionRtol, 1e-4f);
}

TEST(LayersParity, GptMatchesCpu) {  // embeddings, blocks, the tied head; dropout's same masks
  KILN_REQUIRE_GPU();
  expect_layer_parity(
      [] {
        Generator g(9);
        return std::make_shared<Gpt>(GptConfig{2, 2, 32, 16, 37, 0.1f, 5}, g);
      },
      token_ids(3, 16, 37), kReductionRtol, 1e-4f);
}

TEST(LayersParity, CnnPresetMatchesCpu) {  // batch norm and dropout (the same masks) in training
  KILN_REQUIRE_GPU();
  expect_layer_parity(
      [] {
        Generator g(7);
        return build_model("cnn", {1, 28, 28}, 10, g).net;
      },
      random_tensor({4, 1, 28, 28}, 5001), kReductionRtol, 1e-4f);
}

TEST(LayersParity, LossesMatchCpu) {
  KILN_REQUIRE_GPU();
  const Tensor logits = random_tensor({9, 10}, 5100, -3.0f, 3.0f);
  const Tensor labels = testing::random_labels(9, 10, 5101);
  for (float smoothing : {0.0f, 0.1f}) {
    CrossEntropyLoss cpu(smoothing), gpu(smoothing);
    EXPECT_NEAR(gpu.forward(on_gpu(logits), on_gpu(labels)).item(),
                cpu.forward(logits, labels).item(), 1e-5f);
    EXPECT_TRUE(all_close(gpu.backward(), cpu.backward(), kReductionRtol, 1e-7f)) << smoothing;
  }
  const Tensor target = random_tensor({9, 10}, 5102);
  MSELoss cpu, gpu;
  EXPECT_NEAR(gpu.forward(on_gpu(logits), on_gpu(target)).item(),
              cpu.forward(logits, target).item(), 1e-5f);
  EXPECT_TRUE(all_close(gpu.backward(), cpu.backward(), 1e-5f, 1e-7f));
}

}  // namespace
}  // namespace kiln
