// A training step in steady state allocates no tensor memory: layers, the loss and the
// optimizers reuse what they allocated in the first steps. Counted with the CPU allocator's own
// counter (every Storage on the CPU goes through it), so a regression shows as a number.
#include <gtest/gtest.h>

#include <string>

#include "kiln/core/memory.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/spec/model_spec.h"
#include "kiln/spec/optimizer_spec.h"
#include "tests/support/tensor_testing.h"

namespace {

// Raw CPU allocations made by `steps` training steps of `spec` with `optimizer`, after warm-up.
std::uint64_t allocations_in_steady_state(const std::string& spec, const std::string& optimizer) {
  kiln::Generator gen(7);
  const kiln::Model model = kiln::build_model(spec, kiln::Shape({1, 28, 28}), 10, gen);
  auto opt = kiln::make_optimizer(optimizer, model.net->parameters(), 0.01f);
  kiln::CrossEntropyLoss loss;
  const std::int64_t batch = 32;
  const kiln::Tensor x =
      model.as_input(kiln::testing::random_tensor(kiln::Shape({batch, 1, 28, 28}), 1));
  const kiln::Tensor y = kiln::testing::random_labels(batch, 10, 2);
  auto step = [&] {
    loss.forward(model.net->forward(x), y);
    opt->zero_grad();
    model.net->backward(loss.backward());
    opt->step();
  };
  const std::uint64_t start = kiln::memory_stats(kiln::Device::cpu()).raw_allocations;
  for (int i = 0; i < 2; ++i) step();  // first steps allocate outputs, gradients and moments
  const std::uint64_t before = kiln::memory_stats(kiln::Device::cpu()).raw_allocations;
  EXPECT_GT(before, start) << "the counter sees the first steps' allocations";
  for (int i = 0; i < 5; ++i) step();
  return kiln::memory_stats(kiln::Device::cpu()).raw_allocations - before;
}

}  // namespace

TEST(SteadyState, ArticleMlpStepWithMomentumAllocatesNothing) {
  EXPECT_EQ(allocations_in_steady_state("mlp:784-64-64-10", "momentum"), 0u);
}

TEST(SteadyState, AdamStepAllocatesNothing) {
  EXPECT_EQ(allocations_in_steady_state("mlp:784-32-10", "adam"), 0u);
}

TEST(SteadyState, LeNet5StepAllocatesNothing) {
  EXPECT_EQ(allocations_in_steady_state("lenet5", "nesterov"), 0u);
}
