// AdamW's parameter groups (AdamOptions::decays): on a small GPT, with GPT recipes' groups
// (models/gpt_weight_decay.h), one step from known values decays the matrices and leaves the
// biases, LayerNorms and embedding tables undecayed, to the value worked out by hand; the groups
// hold in a recorded update (the CUDA-graph form, run on the CPU) and in make_optimizer.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "kiln/core/ops.h"
#include "kiln/models/gpt.h"
#include "kiln/models/gpt_weight_decay.h"
#include "kiln/optim/adam.h"
#include "kiln/optim/lr_schedule.h"
#include "kiln/optim/step_scalars.h"
#include "kiln/spec/optimizer_spec.h"
#include "tests/optim/optim_testing.h"

namespace kiln {
namespace {

Gpt small_gpt(Generator& gen) {
  GptConfig c;
  c.layers = 1;
  c.heads = 1;
  c.width = 4;
  c.context = 3;
  c.vocabulary = 5;
  return Gpt(c, gen);
}

// Every value 0.5, every gradient 0.25 (so each parameter's expected value is one number).
void set_known_values(Module& model) {
  for (Parameter* p : model.parameters()) {
    fill(p->value, 0.5f);
    fill(p->grad, 0.25f);
  }
}

// One AdamW step from p = 0.5, g = 0.25 (m = v = 0), in double: p * (1 - lr * wd) when decayed,
// then p - lr / (1 - b1) * m / (sqrt(v) / sqrt(1 - b2) + eps).
double expected_after_one_step(double lr, double wd, bool decayed) {
  const double b1 = 0.9, b2 = 0.999, eps = 1e-8, g = 0.25;
  const double m = (1 - b1) * g, v = (1 - b2) * g * g;
  const double p = decayed ? 0.5 * (1 - lr * wd) : 0.5;
  return p - lr / (1 - b1) * m / (std::sqrt(v) / std::sqrt(1 - b2) + eps);
}

TEST(AdamGroups, GptRecipeDecaysMatricesButNotBiasesNormsOrEmbeddings) {
  Generator gen(3);
  Gpt model = small_gpt(gen);
  set_known_values(model);
  AdamOptions options;
  options.decays = gpt_weight_decay_groups(model);
  AdamW adamw(model.parameters(), 0.1f, 0.2f, options);
  adamw.step();

  const double decayed = expected_after_one_step(0.1, 0.2, true);  // 0.39 - 1e-7 or so
  const double undecayed = expected_after_one_step(0.1, 0.2, false);
  ASSERT_GT(undecayed - decayed, 0.009);  // the two groups differ by lr * wd * 0.5 = 0.01
  const std::map<std::string, bool> named = {{"transformer.h.0.attn.c_attn.weight", true},
                                             {"transformer.h.0.attn.c_proj.weight", true},
                                             {"transformer.h.0.mlp.c_fc.weight", true},
                                             {"transformer.h.0.mlp.c_proj.weight", true},
                                             {"transformer.h.0.attn.c_attn.bias", false},
                                             {"transformer.h.0.mlp.c_fc.bias", false},
                                             {"transformer.h.0.ln_1.weight", false},
                                             {"transformer.h.0.ln_1.bias", false},
                                             {"transformer.ln_f.weight", false},
                                             {"transformer.wte.weight", false},
                                             {"transformer.wpe.weight", false}};
  std::size_t seen = 0;
  for (std::size_t i = 0; i < model.parameters().size(); ++i) {
    const Parameter* p = model.parameters()[i];
    const bool expect_decay = p->value.rank() >= 2 && p->name != "transformer.wte.weight" &&
                              p->name != "transformer.wpe.weight";
    if (const auto it = named.find(p->name); it != named.end()) {
      EXPECT_EQ(expect_decay, it->second) << p->name;
      ++seen;
    }
    EXPECT_EQ(adamw.decays(i), expect_decay) << p->name;
    const float want = static_cast<float>(expect_decay ? decayed : undecayed);
    for (const float v : p->value.to_vector<float>()) ASSERT_NEAR(v, want, 1e-6) << p->name;
  }
  EXPECT_EQ(seen, named.size());
  EXPECT_EQ(adamw.decayed_count(), 4u);
  EXPECT_EQ(adamw.describe(),
            fmt::format("AdamW(lr=0.1, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.2 on 4 of {} "
                        "parameters, 0 on the rest)",
                        model.parameters().size()));
}

TEST(AdamGroups, WithoutAFilterEveryParameterDecaysAsBefore) {
  Generator gen(3);
  Gpt model = small_gpt(gen);
  set_known_values(model);
  AdamW adamw(model.parameters(), 0.1f, 0.2f);
  adamw.step();
  EXPECT_EQ(adamw.decayed_count(), model.parameters().size());
  EXPECT_EQ(adamw.describe(), "AdamW(lr=0.1, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.2)");
  const auto want = static_cast<float>(expected_after_one_step(0.1, 0.2, true));
  for (const Parameter* p : model.parameters())
    for (const float v : p->value.to_vector<float>()) ASSERT_NEAR(v, want, 1e-6) << p->name;
}

// L2 Adam (decoupled off) honours the groups too: no decay term in the undecayed gradients.
TEST(AdamGroups, AdamWithGroupsAddsNoDecayToTheOthersGradients) {
  testing::FixedProblem grouped({7, 33}, 5), plain({7, 33}, 5), undecayed({7, 33}, 5);
  AdamOptions options{0.9f, 0.999f, 1e-8f, 0.5f};
  AdamOptions no_decay = options;
  no_decay.weight_decay = 0.0f;
  options.decays = [](const Parameter& p) { return p.name == "p1"; };
  Adam a(grouped.parameters(), 0.01f, options),
      b(plain.parameters(), 0.01f, {0.9f, 0.999f, 1e-8f, 0.5f}),
      c(undecayed.parameters(), 0.01f, no_decay);
  for (int step = 0; step < 3; ++step) {
    for (auto* problem : {&grouped, &plain, &undecayed}) problem->set_gradients(step);
    a.step();
    b.step();
    c.step();
  }
  EXPECT_EQ(grouped.value(0).to_vector<float>(), undecayed.value(0).to_vector<float>());
  EXPECT_EQ(grouped.value(1).to_vector<float>(), plain.value(1).to_vector<float>());
}

// The recorded update (what a CUDA graph replays) keeps the groups: bitwise the eager steps.
TEST(AdamGroups, RecordedUpdatesKeepTheGroups) {
  constexpr std::int64_t kSteps = 5;
  const auto schedule = cosine_lr(0.05f, kSteps);
  const auto only_p1 = [](const Parameter& p) { return p.name == "p1"; };
  testing::FixedProblem eager({7, 33, 1000}), recorded({7, 33, 1000});
  auto a =
      make_optimizer("adamw", eager.parameters(), 0.05f, {.weight_decay = 0.1f, .decays = only_p1});
  auto made = make_optimizer("adamw", recorded.parameters(), 0.05f,
                             {.weight_decay = 0.1f, .decays = only_p1});
  for (std::int64_t step = 0; step < kSteps; ++step) {
    eager.set_gradients(step);
    a->set_lr(schedule->lr_at(step));
    a->step();
  }
  RecordableOptimizer* b = as_recordable(*made);
  ASSERT_NE(b, nullptr);
  recorded.set_gradients(0);
  b->set_lr(schedule->lr_at(0));
  b->step();
  StepScalars scalars;
  scalars.prepare(*b, *schedule, 1, kSteps - 1);
  for (std::int64_t step = 1; step < kSteps; ++step) {
    recorded.set_gradients(step);
    b->record_step(scalars.rows());
    b->replayed();
    scalars.replayed();
  }
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(recorded.value(i).to_vector<float>(), eager.value(i).to_vector<float>()) << i;
}

TEST(AdamGroups, SgdRefusesParameterGroups) {
  testing::FixedProblem problem({7});
  EXPECT_THROW(make_optimizer("momentum", problem.parameters(), 0.1f,
                              {.decays = [](const Parameter&) { return true; }}),
               Error);
}

}  // namespace
}  // namespace kiln
