// make_optimizer's settings: each reaches the optimizer it belongs to, the defaults are today's
// (bitwise the same steps), and a value out of range or for another optimizer is refused.
#include "kiln/spec/optimizer_spec.h"

#include <gtest/gtest.h>

#include "kiln/optim/adam.h"
#include "kiln/optim/sgd.h"
#include "tests/optim/optim_testing.h"
#include "tests/support/error_testing.h"

namespace kiln {
namespace {

using testing::error_message;
using testing::FixedProblem;

TEST(MakeOptimizer, MomentumAndNesterovReachSgd) {
  FixedProblem problem({7});
  const auto sgd = make_optimizer("sgd", problem.parameters(), 0.1f, {.momentum = 0.5f});
  EXPECT_EQ(dynamic_cast<const Sgd&>(*sgd).options().momentum, 0.5f);
  EXPECT_FALSE(dynamic_cast<const Sgd&>(*sgd).options().nesterov);
  const auto nesterov =
      make_optimizer("momentum", problem.parameters(), 0.1f,
                     {.momentum = 0.75f, .nesterov = true, .weight_decay = 0.01f});
  const SgdOptions& o = dynamic_cast<const Sgd&>(*nesterov).options();
  EXPECT_EQ(o.momentum, 0.75f);
  EXPECT_TRUE(o.nesterov);
  EXPECT_EQ(o.weight_decay, 0.01f);
  EXPECT_EQ(effective_momentum("momentum", {}), 0.9f);
  EXPECT_EQ(effective_momentum("sgd", {}), 0.0f);
  EXPECT_EQ(effective_momentum("nesterov", {.momentum = 0.3f}), 0.3f);
}

TEST(MakeOptimizer, BetasAndEpsReachAdamAndAdamW) {
  FixedProblem problem({7});
  for (const char* name : {"adam", "adamw"}) {
    const auto adam =
        make_optimizer(name, problem.parameters(), 0.01f,
                       {.beta1 = 0.8f, .beta2 = 0.99f, .eps = 1e-6f, .weight_decay = 0.02f});
    const AdamOptions& o = dynamic_cast<const Adam&>(*adam).options();
    EXPECT_EQ(o.beta1, 0.8f) << name;
    EXPECT_EQ(o.beta2, 0.99f) << name;
    EXPECT_EQ(o.eps, 1e-6f) << name;
    EXPECT_EQ(o.weight_decay, 0.02f) << name;
    EXPECT_EQ(o.decoupled, std::string(name) == "adamw");
  }
}

// Default settings step exactly as the optimizers built with their own defaults.
TEST(MakeOptimizer, DefaultSettingsStepBitwiseAsTheOptimizersOwnDefaults) {
  for (const char* name : {"momentum", "adam"}) {
    FixedProblem a({7, 33}), b({7, 33});
    auto made = make_optimizer(name, a.parameters(), 0.05f);
    std::unique_ptr<Optimizer> own;
    if (std::string(name) == "adam")
      own = std::make_unique<Adam>(b.parameters(), 0.05f);
    else
      own = std::make_unique<Sgd>(b.parameters(), 0.05f, SgdOptions{.momentum = 0.9f});
    for (int step = 0; step < 3; ++step) {
      a.set_gradients(step);
      b.set_gradients(step);
      made->step();
      own->step();
    }
    for (std::size_t i = 0; i < a.parameters().size(); ++i)
      EXPECT_EQ(a.parameters()[i]->value.to_vector<float>(),
                b.parameters()[i]->value.to_vector<float>())
          << name;
  }
}

TEST(MakeOptimizer, RefusesSettingsOutOfRangeOrForAnotherOptimizer) {
  FixedProblem problem({7});
  const auto message = [&](const char* name, const OptimizerSettings& s) {
    return error_message([&] { make_optimizer(name, problem.parameters(), 0.1f, s); });
  };
  EXPECT_EQ(message("momentum", {.momentum = 1.0f})
                .find("OptimizerSettings::momentum must be in [0, 1), found 1"),
            0u);
  EXPECT_NE(message("momentum", {.momentum = -0.1f})
                .find("OptimizerSettings::momentum must be in [0, 1)"),
            std::string::npos);
  EXPECT_NE(
      message("adam", {.beta1 = 1.0f}).find("OptimizerSettings::beta1 must be in [0, 1), found 1"),
      std::string::npos);
  EXPECT_NE(message("adam", {.beta2 = -0.5f})
                .find("OptimizerSettings::beta2 must be in [0, 1), found -0.5"),
            std::string::npos);
  EXPECT_NE(message("adam", {.eps = 0.0f}).find("OptimizerSettings::eps must be positive, found 0"),
            std::string::npos);
  EXPECT_NE(message("sgd", {.beta1 = 0.5f}).find("not optimizer sgd"), std::string::npos);
  EXPECT_NE(message("adamw", {.momentum = 0.5f})
                .find("OptimizerSettings::momentum and OptimizerSettings::nesterov set SGD, not "
                      "optimizer adamw"),
            std::string::npos);
  EXPECT_NE(message("sgd", {.nesterov = true}).find("Nesterov momentum needs a momentum above 0"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln
