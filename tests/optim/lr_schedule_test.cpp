// Learning-rate schedules: the rate at each step of short schedules, against values worked out
// by hand from PyTorch's closed forms; and the spec parser's errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/optim/lr_schedule.h"
#include "kiln/spec/schedule_spec.h"

namespace kiln {
namespace {

struct Row {
  std::string spec;
  float base;
  std::int64_t total;
  std::vector<double> expected;  // lr_at(0), lr_at(1), ...
};

// cos(pi/4) terms of a 4-step cosine: (1 + cos(pi/4)) / 2 and (1 - cos(pi/4)) / 2.
constexpr double kHigh = 0.85355339059327373, kLow = 0.14644660940672627;

const Row kTable[] = {
    {"constant", 0.1f, 10, {0.1, 0.1, 0.1, 0.1}},
    {"step:2:0.5", 1.0f, 10, {1, 1, 0.5, 0.5, 0.25, 0.25, 0.125}},
    {"step:3:0.1", 0.3f, 10, {0.3, 0.3, 0.3, 0.03, 0.03, 0.03, 0.003}},
    {"multistep:2,5:0.1", 1.0f, 10, {1, 1, 0.1, 0.1, 0.1, 0.01, 0.01}},
    {"exp:0.5", 2.0f, 10, {2, 1, 0.5, 0.25, 0.125}},
    {"cosine", 1.0f, 4, {1, kHigh, 0.5, kLow, 0}},
    {"cosine:0.1", 1.0f, 2, {1, 0.55, 0.1}},
    // nanoGPT's min_lr and lr_decay_iters: the floor from step 2 of a 10-step run on, held.
    {"cosine:0.1:2", 1.0f, 10, {1, 0.55, 0.1, 0.1, 0.1}},
    {"warmup:2+cosine:0.1:4", 1.0f, 10, {0, 0.5, 1, 0.55, 0.1, 0.1, 0.1}},
    {"warmup:4+cosine", 1.0f, 8, {0, 0.25, 0.5, 0.75, 1, kHigh, 0.5, kLow, 0}},
    {"warmup:2:0.5+step:2:0.1", 2.0f, 10, {1, 1.5, 2, 2, 0.2, 0.2, 0.02}},
    {"warmup:3+constant", 0.3f, 10, {0, 0.1, 0.2, 0.3, 0.3}},
    {"warmup:1:0.25+exp:0.5", 1.0f, 10, {0.25, 1, 0.5, 0.25}},
};

TEST(LrSchedule, RateAtEachStepMatchesTheHandComputedTable) {
  for (const Row& row : kTable) {
    SCOPED_TRACE(row.spec);
    const auto schedule = parse_schedule(row.spec, row.base, row.total);
    for (std::size_t step = 0; step < row.expected.size(); ++step)
      EXPECT_NEAR(schedule->lr_at(static_cast<std::int64_t>(step)), row.expected[step],
                  1e-6 * std::max(1.0, std::abs(row.expected[step])))
          << "step " << step;
  }
}

TEST(LrSchedule, IsAPureFunctionOfTheStep) {
  const auto schedule = parse_schedule("warmup:5+cosine", 0.1f, 100);
  const float late = schedule->lr_at(70);
  schedule->lr_at(3);
  EXPECT_EQ(schedule->lr_at(70), late);  // nothing carried between calls: resume is trivial
}

TEST(LrSchedule, FactoriesMatchTheParser) {
  EXPECT_EQ(cosine_lr(0.1f, 50)->lr_at(17), parse_schedule("cosine", 0.1f, 50)->lr_at(17));
  EXPECT_EQ(warmup_lr(10, 0.0f, multi_step_lr(1.0f, {5}, 0.5f))->lr_at(16), 0.5f);
  EXPECT_EQ(step_lr(1.0f, 2, 0.5f)->describe(), "step(step_size=2, gamma=0.5)");
  EXPECT_EQ(parse_schedule("warmup:5+cosine", 0.1f, 100)->describe(),
            "warmup(5 steps from 0) + cosine(T_max=95, eta_min=0)");
}

std::string error_of(const std::string& spec, std::int64_t total = 100) {
  try {
    parse_schedule(spec, 0.1f, total);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(LrSchedule, BadSpecsNameTheSpecAndTheAcceptedForms) {
  const std::pair<const char*, const char*> cases[] = {
      {"linear", "unknown schedule 'linear'"},
      {"", "unknown schedule ''"},
      {"step:3", "'step' takes the form step:<step_size>:<gamma>"},
      {"step:0:0.1", "step_size must be >= 1"},
      {"step:2.5:0.1", "step_size '2.5' is not an integer"},
      {"exp:fast", "gamma 'fast' is not a number"},
      {"exp:-0.5", "gamma must be a finite value > 0"},
      {"multistep:30,10:0.1", "milestones must be >= 0 and increasing"},
      {"multistep::0.1", "milestone '' is not an integer"},
      {"constant:1", "'constant' takes the form constant"},
      {"warmup:5", "warm-up must be followed by '+<schedule>'"},
      {"warmup:0+cosine", "the number of steps must be >= 1"},
      {"warmup:5:2+cosine", "the start factor must lie in [0, 1]"},
      {"cosine+warmup:5", "only a warm-up may stand before '+'"},
      {"warmup:100+cosine", "cosine needs steps to anneal over, but 0 remain"},
      {"warmup:5+cosine:0.1:5", "cosine's decay_steps 5 must pass the 5 warm-up steps"},
      {"cosine:0.1:2:3", "'cosine' takes the form cosine[:<min_lr>[:<decay_steps>]]"},
      {"cosine:low", "min_lr 'low' is not a number"},
  };
  for (const auto& [spec, reason] : cases) {
    const std::string message = error_of(spec);
    EXPECT_NE(message.find(std::string("bad learning-rate schedule '") + spec + "'"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(reason), std::string::npos) << message;
    EXPECT_NE(message.find("accepted forms: constant | step:<step_size>:<gamma>"),
              std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace kiln

// nanoGPT's train.py get_lr past its warm-up: min_lr + (lr - min_lr) * (1 + cos(pi * ratio)) / 2
// with ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters), and min_lr past
// lr_decay_iters. (Its warm-up, lr * (it + 1) / (warmup_iters + 1), is not LinearLR's.)
TEST(LrSchedule, CosineWithDecayStepsFollowsNanoGptsGetLrPastTheWarmUp) {
  const double lr = 1e-3, min_lr = 1e-4;
  const std::int64_t warmup = 100, decay = 5000, max_iters = 6000;
  const auto schedule =
      kiln::parse_schedule("warmup:100+cosine:1e-4:5000", static_cast<float>(lr), max_iters);
  for (std::int64_t it = warmup; it <= max_iters; it += 37) {
    double expected = min_lr;
    if (it <= decay) {
      const double ratio = double(it - warmup) / double(decay - warmup);
      expected = min_lr + 0.5 * (1.0 + std::cos(3.14159265358979323846 * ratio)) * (lr - min_lr);
    }
    EXPECT_NEAR(schedule->lr_at(it), expected, 1e-9) << "step " << it;
  }
  EXPECT_EQ(schedule->describe(),
            "warmup(100 steps from 0) + cosine(T_max=4900, eta_min=0.0001, then eta_min)");
}
