// Adam and AdamW against a double-precision loop of torch.optim.Adam / AdamW's equations,
// written out here, over several steps of a fixed problem; plus the state and option checks.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/optim/adam.h"
#include "tests/optim/optim_testing.h"

namespace kiln {
namespace {

using testing::FixedProblem;

constexpr std::int64_t kSizes[] = {1, 7, 33, 1000};
constexpr int kSteps = 8;

struct Moments {
  std::vector<double> m, v;
};

// torch.optim.Adam(W) for one parameter in double; t counts from 1.
void reference_step(const AdamOptions& o, float lr_f, int t, const std::vector<float>& grad,
                    std::vector<double>& p, Moments& s) {
  const double lr = lr_f, b1 = o.beta1, b2 = o.beta2, eps = o.eps, wd = o.weight_decay;
  const double bc1 = 1.0 - std::pow(b1, t), bc2 = 1.0 - std::pow(b2, t);
  for (std::size_t i = 0; i < p.size(); ++i) {
    double g = grad[i];
    if (o.decoupled)
      p[i] *= 1.0 - lr * wd;
    else
      g += wd * p[i];
    s.m[i] = b1 * s.m[i] + (1.0 - b1) * g;
    s.v[i] = b2 * s.v[i] + (1.0 - b2) * g * g;
    p[i] -= lr / bc1 * s.m[i] / (std::sqrt(s.v[i]) / std::sqrt(bc2) + eps);
  }
}

void expect_matches_reference(Adam& adam, FixedProblem& problem, float lr) {
  const AdamOptions o = adam.options();
  std::vector<std::vector<double>> p;
  std::vector<Moments> s;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    p.push_back(problem.values(i));
    s.push_back({std::vector<double>(p.back().size()), std::vector<double>(p.back().size())});
  }
  for (int step = 0; step < kSteps; ++step) {
    problem.set_gradients(step);
    adam.step();
    const auto state = adam.state();
    for (std::size_t i = 0; i < problem.size(); ++i) {
      SCOPED_TRACE(::testing::Message() << "step " << step << " parameter " << i);
      reference_step(o, lr, step + 1, problem.gradient(i, step), p[i], s[i]);
      const std::string name = "p" + std::to_string(i);
      EXPECT_TRUE(testing::all_close(problem.value(i).to_vector<float>(), testing::to_float(p[i]),
                                     1e-5f, 1e-6f));
      EXPECT_TRUE(testing::all_close(state.at(name + ".exp_avg").to_vector<float>(),
                                     testing::to_float(s[i].m), 1e-5f, 1e-7f));
      EXPECT_TRUE(testing::all_close(state.at(name + ".exp_avg_sq").to_vector<float>(),
                                     testing::to_float(s[i].v), 1e-5f, 1e-9f));
    }
  }
}

TEST(Adam, StepsFollowPyTorchEquations) {
  FixedProblem problem({std::begin(kSizes), std::end(kSizes)});
  Adam adam(problem.parameters(), 0.01f);
  expect_matches_reference(adam, problem, 0.01f);
}

TEST(Adam, OtherBetasAndEpsFollowPyTorchEquations) {
  FixedProblem problem({std::begin(kSizes), std::end(kSizes)}, 11);
  Adam adam(problem.parameters(), 0.003f, {0.5f, 0.9f, 1e-3f});
  expect_matches_reference(adam, problem, 0.003f);
}

TEST(Adam, WeightDecayIsAddedToTheGradient) {
  FixedProblem problem({std::begin(kSizes), std::end(kSizes)}, 13);
  Adam adam(problem.parameters(), 0.01f, {0.9f, 0.999f, 1e-8f, 0.1f});
  expect_matches_reference(adam, problem, 0.01f);
}

TEST(AdamW, DecaysTheParametersBeforeTheUpdate) {
  FixedProblem problem({std::begin(kSizes), std::end(kSizes)}, 17);
  AdamW adamw(problem.parameters(), 0.01f, 0.1f);
  EXPECT_TRUE(adamw.options().decoupled);
  EXPECT_FLOAT_EQ(adamw.options().weight_decay, 0.1f);
  expect_matches_reference(adamw, problem, 0.01f);
}

TEST(AdamW, DefaultsToPyTorchsWeightDecay) {
  FixedProblem problem({7});
  AdamW adamw(problem.parameters());
  EXPECT_EQ(adamw.describe(), "AdamW(lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.01)");
}

TEST(Adam, HoldsBothMomentsPerParameterAfterTheFirstStep) {
  FixedProblem problem({7, 33});
  Adam adam(problem.parameters());
  EXPECT_TRUE(adam.state().empty());
  adam.step();
  const auto state = adam.state();
  EXPECT_EQ(state.size(), 4u);
  for (const char* name : {"p0.exp_avg", "p0.exp_avg_sq", "p1.exp_avg", "p1.exp_avg_sq"})
    EXPECT_EQ(state.count(name), 1u) << name;
  EXPECT_EQ(state.at("p1.exp_avg").shape(), Shape{33});
}

TEST(Adam, HandlesEmptyParametersAmongOthers) {
  FixedProblem problem({0, 7, 0, 33}, 19);
  Adam adam(problem.parameters(), 0.01f);
  expect_matches_reference(adam, problem, 0.01f);
  EXPECT_EQ(adam.state().at("p0.exp_avg").numel(), 0);
}

TEST(Adam, RejectsInvalidOptions) {
  FixedProblem problem({7});
  EXPECT_THROW(Adam(problem.parameters(), 0.01f, {1.0f}), Error);
  EXPECT_THROW(Adam(problem.parameters(), 0.01f, {0.9f, -0.1f}), Error);
  EXPECT_THROW(Adam(problem.parameters(), 0.01f, {0.9f, 0.999f, -1e-8f}), Error);
  EXPECT_THROW(AdamW(problem.parameters(), 0.01f, -0.1f), Error);
}

}  // namespace
}  // namespace kiln
