// Optimizer state for checkpoints: save -> restore into a fresh optimizer -> continue gives
// bitwise the parameters of never stopping, for every optimizer make_optimizer knows; load_state
// rejects missing, misshapen and unexpected names; make_optimizer's names and errors.
#include <gtest/gtest.h>

#include "kiln/optim/adam.h"
#include "kiln/optim/sgd.h"
#include "kiln/spec/optimizer_spec.h"
#include "tests/optim/optim_testing.h"
#include "tests/support/error_testing.h"

namespace kiln {
namespace {

using testing::FixedProblem;

const std::vector<std::int64_t> kResumeSizes = {1, 7, 33, 1000};
const char* const kNames[] = {"sgd", "momentum", "nesterov", "adam", "adamw"};

using testing::error_message;

// Host copies of the state, as a checkpoint would hold them.
std::map<std::string, Tensor> saved(const Optimizer& optimizer) {
  std::map<std::string, Tensor> out;
  for (const auto& [name, t] : optimizer.state()) out.emplace(name, t.to(Device::cpu()).clone());
  return out;
}

TEST(OptimizerState, SaveRestoreContinueEqualsNeverStopping) {
  constexpr int kBefore = 3, kAfter = 4;
  for (const char* name : kNames) {
    SCOPED_TRACE(name);
    FixedProblem straight(kResumeSizes);
    auto a = make_optimizer(name, straight.parameters(), 0.01f, {.weight_decay = 0.01f});
    for (int step = 0; step < kBefore + kAfter; ++step) {
      straight.set_gradients(step);
      a->step();
    }

    FixedProblem first(kResumeSizes);
    auto b = make_optimizer(name, first.parameters(), 0.01f, {.weight_decay = 0.01f});
    for (int step = 0; step < kBefore; ++step) {
      first.set_gradients(step);
      b->step();
    }
    const auto state = saved(*b);
    // A fresh model and optimizer, as after a restart: weights from the checkpoint, then state.
    FixedProblem resumed(kResumeSizes);
    for (std::size_t i = 0; i < kResumeSizes.size(); ++i) {
      fill(resumed.parameters()[i]->value, 0.0f);
      copy(first.value(i), resumed.parameters()[i]->value);
    }
    auto c = make_optimizer(name, resumed.parameters(), 0.01f, {.weight_decay = 0.01f});
    c->load_state(state, b->steps());
    EXPECT_EQ(c->steps(), kBefore);
    for (int step = kBefore; step < kBefore + kAfter; ++step) {
      resumed.set_gradients(step);
      c->step();
    }
    for (std::size_t i = 0; i < kResumeSizes.size(); ++i)
      EXPECT_EQ(resumed.value(i).to_vector<float>(), straight.value(i).to_vector<float>())
          << "parameter " << i;
  }
}

TEST(OptimizerState, EmptyStateAtStepZeroRestarts) {
  FixedProblem problem(kResumeSizes);
  Adam adam(problem.parameters());
  adam.step();
  adam.load_state({}, 0);
  EXPECT_EQ(adam.steps(), 0);
  EXPECT_TRUE(adam.state().empty());
}

TEST(OptimizerState, RejectsAMissingName) {
  FixedProblem problem(kResumeSizes);
  Sgd sgd(problem.parameters(), 0.1f, {0.9f});
  sgd.step();
  auto state = saved(sgd);
  state.erase("p2.momentum_buffer");
  Sgd fresh(problem.parameters(), 0.1f, {0.9f});
  const std::string message = error_message([&] { fresh.load_state(state, 1); });
  EXPECT_NE(message.find("no 'p2.momentum_buffer'"), std::string::npos) << message;
  EXPECT_TRUE(fresh.state().empty());  // a rejected checkpoint changes nothing
}

TEST(OptimizerState, RejectsAWrongShapeAndAnUnexpectedName) {
  FixedProblem problem(kResumeSizes);
  Adam adam(problem.parameters());
  adam.step();
  auto state = saved(adam);
  state["p1.exp_avg"] = Tensor::zeros(Shape{8});
  std::string message = error_message([&] { adam.load_state(state, 1); });
  EXPECT_NE(message.find("'p1.exp_avg' must be float32 of shape (7,)"), std::string::npos)
      << message;

  state = saved(adam);
  state["p9.exp_avg"] = Tensor::zeros(Shape{1});
  message = error_message([&] { adam.load_state(state, 1); });
  EXPECT_NE(message.find("unexpected saved state 'p9.exp_avg'"), std::string::npos) << message;

  // Adam moments handed to SGD with momentum: every expected name is missing.
  Sgd sgd(problem.parameters(), 0.1f, {0.9f});
  message = error_message([&] { sgd.load_state(saved(adam), 1); });
  EXPECT_NE(message.find("no 'p0.momentum_buffer'"), std::string::npos) << message;
  EXPECT_THROW(adam.load_state(saved(adam), -1), Error);
}

TEST(OptimizerState, RejectsDuplicateParameterNames) {
  FixedProblem problem({7, 7});
  auto params = problem.parameters();
  params[1]->name = params[0]->name;
  EXPECT_THROW(Sgd(params, 0.1f), Error);
}

TEST(MakeOptimizer, BuildsEachNamedOptimizer) {
  FixedProblem problem({7});
  EXPECT_EQ(make_optimizer("sgd", problem.parameters(), 0.1f)->describe(),
            "SGD(lr=0.1, momentum=0, dampening=0, weight_decay=0)");
  EXPECT_EQ(
      make_optimizer("momentum", problem.parameters(), 0.1f, {.weight_decay = 1e-4f})->describe(),
      "SGD(lr=0.1, momentum=0.9, dampening=0, weight_decay=0.0001)");
  EXPECT_EQ(make_optimizer("nesterov", problem.parameters(), 0.1f)->describe(),
            "SGD(lr=0.1, momentum=0.9, dampening=0, weight_decay=0, nesterov)");
  EXPECT_EQ(make_optimizer("adam", problem.parameters(), 0.001f)->describe(),
            "Adam(lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0)");
  EXPECT_EQ(
      make_optimizer("adamw", problem.parameters(), 0.001f, {.weight_decay = 0.05f})->describe(),
      "AdamW(lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.05)");
}

TEST(MakeOptimizer, ListsTheNamesForAnUnknownOne) {
  FixedProblem problem({7});
  const std::string message =
      error_message([&] { make_optimizer("rmsprop", problem.parameters(), 0.1f); });
  EXPECT_NE(message.find("unknown optimizer 'rmsprop'"), std::string::npos) << message;
  EXPECT_NE(message.find("sgd, momentum, nesterov, adam, adamw"), std::string::npos) << message;
}

}  // namespace
}  // namespace kiln
