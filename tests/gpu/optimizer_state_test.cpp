// An optimizer whose parameters move to the GPU between steps (as Module::to() does: the
// Parameter objects stay, their tensors move) keeps its state with them and goes on matching a
// CPU twin. The ops' parity is the op harness's (tests/ops/).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kiln/optim/clip.h"
#include "kiln/optim/sgd.h"
#include "kiln/spec/optimizer_spec.h"
#include "tests/gpu/gpu_parity.h"
#include "tests/optim/optim_testing.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::FixedProblem;
using testing::kElementwiseRtol;
using testing::kGpu;

// Values near zero after an update cancel; 1e-6 absolute covers that at magnitudes around 1.
constexpr float kAtol = 1e-6f;
const std::vector<std::int64_t> kMovedSizes = {1, 7, 33, 1000, 4099, 70000};

void expect_same(FixedProblem& gpu, FixedProblem& cpu, const Optimizer& on_gpu,
                 const Optimizer& on_cpu) {
  for (std::size_t i = 0; i < cpu.size(); ++i)
    EXPECT_TRUE(all_close(gpu.value(i), cpu.value(i), kElementwiseRtol, kAtol))
        << "parameter " << i;
  const auto cpu_state = on_cpu.state();
  const auto gpu_state = on_gpu.state();
  ASSERT_EQ(gpu_state.size(), cpu_state.size());
  for (const auto& [name, t] : cpu_state) {
    EXPECT_EQ(gpu_state.at(name).device(), kGpu) << name;
    EXPECT_TRUE(all_close(gpu_state.at(name), t, kElementwiseRtol, kAtol)) << name;
  }
}

TEST(OptimizerOnTheGpu, StateFollowsParametersMovedToTheGpu) {
  KILN_REQUIRE_GPU();
  FixedProblem cpu(kMovedSizes, 25), moved(kMovedSizes, 25);
  auto on_cpu = make_optimizer("adamw", cpu.parameters(), 0.01f, {.weight_decay = 0.01f});
  auto on_moved = make_optimizer("adamw", moved.parameters(), 0.01f, {.weight_decay = 0.01f});
  for (int step = 0; step < 4; ++step) {
    if (step == 2)  // as Module::to() does: the Parameter objects stay, their tensors move
      for (Parameter* p : moved.parameters()) {
        p->value = p->value.to(kGpu);
        p->grad = p->grad.to(kGpu);
      }
    cpu.set_gradients(step);
    moved.set_gradients(step);
    on_cpu->step();
    on_moved->step();
  }
  expect_same(moved, cpu, *on_moved, *on_cpu);
}

}  // namespace
}  // namespace kiln
