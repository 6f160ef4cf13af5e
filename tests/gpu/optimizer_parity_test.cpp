// GPU parity of the multi-tensor optimizer ops through the optimizers and clipping: the same
// parameters and gradients on the CPU and on cuda:0, several steps, values and state compared
// at odd sizes (1, 7, 33, 1000, 4099, 70000: one and many chunks per tensor), and with more than
// 64 tensors (several launches, empty tensors among them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kiln/optim/clip.h"
#include "kiln/spec/optimizer_spec.h"
#include "kiln/optim/sgd.h"
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
const std::vector<std::int64_t> kSizes = {1, 7, 33, 1000, 4099, 70000};

std::vector<std::int64_t> many_sizes() {  // 150 tensors: three launches of up to 64
  const std::int64_t cycle[] = {1, 7, 33, 1000, 4099, 0};
  std::vector<std::int64_t> sizes;
  for (int i = 0; i < 150; ++i) sizes.push_back(cycle[i % 6]);
  return sizes;
}

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

void run_parity(const std::vector<std::int64_t>& sizes, const char* name, int steps) {
  SCOPED_TRACE(name);
  FixedProblem cpu(sizes, 21), gpu(sizes, 21, kGpu);
  auto on_cpu = make_optimizer(name, cpu.parameters(), 0.01f, {.weight_decay = 0.01f});
  auto on_gpu = make_optimizer(name, gpu.parameters(), 0.01f, {.weight_decay = 0.01f});
  for (int step = 0; step < steps; ++step) {
    SCOPED_TRACE(::testing::Message() << "step " << step);
    cpu.set_gradients(step);
    gpu.set_gradients(step);
    on_cpu->step();
    on_gpu->step();
    expect_same(gpu, cpu, *on_gpu, *on_cpu);
  }
}

TEST(OptimizerParity, EveryOptimizerMatchesCpuOverSeveralSteps) {
  KILN_REQUIRE_GPU();
  for (const char* name : {"sgd", "momentum", "nesterov", "adam", "adamw"})
    run_parity(kSizes, name, 5);
}

TEST(OptimizerParity, SgdWithDampeningMatchesCpu) {
  KILN_REQUIRE_GPU();
  FixedProblem cpu(kSizes, 23), gpu(kSizes, 23, kGpu);
  const SgdOptions options{0.9f, 0.3f, 0.05f};
  Sgd on_cpu(cpu.parameters(), 0.05f, options), on_gpu(gpu.parameters(), 0.05f, options);
  for (int step = 0; step < 4; ++step) {
    cpu.set_gradients(step);
    gpu.set_gradients(step);
    on_cpu.step();
    on_gpu.step();
  }
  expect_same(gpu, cpu, on_gpu, on_cpu);
}

TEST(OptimizerParity, MoreThan64TensorsSplitIntoSeveralLaunches) {
  KILN_REQUIRE_GPU();
  for (const char* name : {"momentum", "adamw"}) run_parity(many_sizes(), name, 3);
}

TEST(OptimizerParity, StateFollowsParametersMovedToTheGpu) {
  KILN_REQUIRE_GPU();
  FixedProblem cpu(kSizes, 25), moved(kSizes, 25);
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

void expect_clip_parity(const std::vector<std::int64_t>& sizes, float max_norm_fraction) {
  FixedProblem cpu(sizes, 31), gpu(sizes, 31, kGpu);
  cpu.set_gradients(0);
  gpu.set_gradients(0);
  const Tensor probe = clip_grad_norm(cpu.parameters(), 1e30f);  // the norm, nothing clipped
  const float max_norm = max_norm_fraction * probe.item();
  const Tensor cpu_norm = clip_grad_norm(cpu.parameters(), max_norm);
  const Tensor gpu_norm = clip_grad_norm(gpu.parameters(), max_norm);
  EXPECT_EQ(gpu_norm.device(), kGpu);
  EXPECT_TRUE(all_close(gpu_norm, cpu_norm, kElementwiseRtol, 0.0f));
  for (std::size_t i = 0; i < sizes.size(); ++i)
    EXPECT_TRUE(
        all_close(gpu.parameters()[i]->grad, cpu.parameters()[i]->grad, kElementwiseRtol, 1e-7f))
        << "gradient " << i;
  clip_grad_value(cpu.parameters(), 0.01f);
  clip_grad_value(gpu.parameters(), 0.01f);
  for (std::size_t i = 0; i < sizes.size(); ++i)
    EXPECT_TRUE(
        all_close(gpu.parameters()[i]->grad, cpu.parameters()[i]->grad, kElementwiseRtol, 1e-7f))
        << "clamped gradient " << i;
}

TEST(OptimizerParity, ClippingMatchesCpu) {
  KILN_REQUIRE_GPU();
  for (float fraction : {0.3f, 2.0f}) {  // clipped, and left alone
    SCOPED_TRACE(::testing::Message() << "max_norm = " << fraction << " * norm");
    expect_clip_parity(kSizes, fraction);
    expect_clip_parity(many_sizes(), fraction);
  }
}

TEST(OptimizerParity, MultiSumSquaresMatchesCpuAndRepeatsBitwise) {
  KILN_REQUIRE_GPU();
  for (const auto& sizes : {kSizes, many_sizes(), std::vector<std::int64_t>{(1 << 20) + 3}}) {
    FixedProblem cpu(sizes, 41), gpu(sizes, 41, kGpu);
    std::vector<const Tensor*> cpu_list, gpu_list;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      cpu_list.push_back(&cpu.value(i));
      gpu_list.push_back(&gpu.value(i));
    }
    Tensor expected = Tensor::empty(Shape{1}), first = Tensor::empty(Shape{1}, DType::f32, kGpu);
    Tensor again = Tensor::empty(Shape{1}, DType::f32, kGpu);
    multi_sum_squares(cpu_list, expected);
    multi_sum_squares(gpu_list, first);
    multi_sum_squares(gpu_list, again);
    EXPECT_TRUE(all_close(first, expected, kElementwiseRtol, 0.0f)) << sizes.size() << " tensors";
    const float a = first.item(), b = again.item();
    EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0);  // fixed summation order: the same bits
  }
}

TEST(OptimizerParity, MultiSumSquaresOfNoElementsIsZero) {
  KILN_REQUIRE_GPU();
  const Tensor empty = Tensor::zeros(Shape{0}, DType::f32, kGpu);
  const Tensor* list[] = {&empty};
  Tensor out = Tensor::full(Shape{1}, 3.0f, kGpu);
  multi_sum_squares(list, out);
  EXPECT_EQ(out.item(), 0.0f);
}

}  // namespace
}  // namespace kiln
