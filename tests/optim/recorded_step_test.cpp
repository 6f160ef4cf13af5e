// Recorded optimizer updates (RecordableOptimizer::record_step with StepScalars), the form a CUDA
// graph replays: run on the CPU, each call does what one replay does. They give bitwise the
// parameters and state of eager steps under a learning rate that changes every step, for every
// optimizer, read their scalars from the rows (not from the host's lr or step count) and refuse to
// run without earlier state, past their rows or with rows of another optimizer.
#include <gtest/gtest.h>

#include "kiln/optim/lr_schedule.h"
#include "kiln/optim/sgd.h"
#include "kiln/optim/step_scalars.h"
#include "kiln/spec/optimizer_spec.h"
#include "tests/optim/optim_testing.h"
#include "tests/support/error_testing.h"

namespace kiln {
namespace {

using testing::error_message;
using testing::FixedProblem;

const std::vector<std::int64_t> kRecordedSizes = {1, 7, 33, 1000};

TEST(RecordedStep, ReplaysEqualEagerStepsUnderAChangingLearningRate) {
  constexpr std::int64_t kSteps = 8;
  const auto schedule = cosine_lr(0.05f, kSteps);
  for (const char* name : {"sgd", "momentum", "nesterov", "adam", "adamw"}) {
    SCOPED_TRACE(name);
    FixedProblem eager(kRecordedSizes);
    auto a = make_optimizer(name, eager.parameters(), 0.05f, {.weight_decay = 0.01f});
    for (std::int64_t step = 0; step < kSteps; ++step) {
      eager.set_gradients(step);
      a->set_lr(schedule->lr_at(step));
      a->step();
    }

    FixedProblem recorded(kRecordedSizes);
    auto made = make_optimizer(name, recorded.parameters(), 0.05f, {.weight_decay = 0.01f});
    ASSERT_NE(as_recordable(*made), nullptr);
    RecordableOptimizer* b = as_recordable(*made);
    recorded.set_gradients(0);
    b->set_lr(schedule->lr_at(0));
    b->step();  // a recording needs the state of one eager step
    StepScalars scalars;
    scalars.prepare(*b, *schedule, 1, kSteps - 1);
    // A learning rate the rows must override: a replay never sees the host's value.
    b->set_lr(123.0f);
    for (std::int64_t step = 1; step < kSteps; ++step) {
      recorded.set_gradients(step);
      b->record_step(scalars.rows());
      b->replayed();
      scalars.replayed();
    }
    EXPECT_EQ(b->steps(), kSteps);
    EXPECT_EQ(scalars.remaining(), 0);
    EXPECT_EQ(scalars.rows().cursor->to_vector<std::int32_t>(),
              std::vector<std::int32_t>{kSteps - 1});
    for (std::size_t i = 0; i < kRecordedSizes.size(); ++i)
      EXPECT_EQ(recorded.value(i).to_vector<float>(), eager.value(i).to_vector<float>())
          << "parameter " << i;
    const auto state_a = a->state(), state_b = b->state();
    ASSERT_EQ(state_a.size(), state_b.size());
    for (const auto& [key, t] : state_a)
      EXPECT_EQ(state_b.at(key).to_vector<float>(), t.to_vector<float>()) << key;
  }
}

TEST(RecordedStep, NeedsTheStateOfAnEarlierStep) {
  FixedProblem problem(kRecordedSizes);
  Sgd sgd(problem.parameters(), 0.1f, {0.9f});
  StepScalars scalars;
  scalars.prepare(sgd, *constant_lr(0.1f), 0, 4);
  const std::string message = error_message([&] { sgd.record_step(scalars.rows()); });
  EXPECT_NE(message.find("run step() once before recording one"), std::string::npos) << message;
  EXPECT_EQ(problem.value(0).to_vector<float>(),
            FixedProblem(kRecordedSizes).value(0).to_vector<float>());
}

TEST(RecordedStep, StopsWhenTheRowsAreUsedUp) {
  FixedProblem problem(kRecordedSizes);
  Sgd sgd(problem.parameters(), 0.1f, {0.9f});
  sgd.step();
  StepScalars scalars;
  scalars.prepare(sgd, *constant_lr(0.1f), 1, 1);
  sgd.record_step(scalars.rows());
  const auto before = problem.value(3).to_vector<float>();
  const std::string message = error_message([&] { sgd.record_step(scalars.rows()); });
  EXPECT_NE(message.find("the per-step rows are used up: the cursor is at row 1 of 1"),
            std::string::npos)
      << message;
  EXPECT_EQ(problem.value(3).to_vector<float>(), before);  // nothing was updated
}

TEST(RecordedStep, RejectsTheRowsOfAnotherOptimizer) {
  FixedProblem problem(kRecordedSizes);
  auto adam = make_optimizer("adam", problem.parameters(), 1e-3f, {.weight_decay = 0.0f});
  Sgd sgd(problem.parameters(), 0.1f);
  adam->step();
  sgd.step();
  StepScalars adam_rows;
  adam_rows.prepare(*as_recordable(*adam), *constant_lr(1e-3f), 1, 3);
  const std::string message = error_message([&] { sgd.record_step(adam_rows.rows()); });
  EXPECT_NE(message.find("the per-step rows must be (steps, 1)"), std::string::npos) << message;
}

}  // namespace
}  // namespace kiln
