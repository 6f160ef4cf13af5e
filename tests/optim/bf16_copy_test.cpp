// The bf16 weight copies of --precision bf16 on the CPU (Parameter::bf16): every optimizer
// rewrites a parameter's copy from its new value in the update's own pass, the same values as
// training without copies, and leaves parameters without a copy alone; the copy is the exact
// round-to-nearest-even of the value; a Linear makes it at its first forward, and loading or
// moving values resets it.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kiln/core/cpu/bf16.h"
#include "kiln/core/cpu_compute.h"
#include "kiln/core/precision.h"
#include "kiln/layers/linear.h"
#include "kiln/spec/optimizer_spec.h"
#include "tests/optim/optim_testing.h"

namespace kiln {
namespace {

using testing::FixedProblem;

std::vector<std::uint16_t> bits_of(const Tensor& copy) {
  std::vector<std::uint16_t> out(static_cast<std::size_t>(copy.numel()));
  std::memcpy(out.data(), copy.raw_data(), out.size() * sizeof(std::uint16_t));
  return out;
}

std::vector<std::uint16_t> rounded(const Tensor& value) {
  std::vector<std::uint16_t> out;
  for (float v : value.to_vector<float>()) out.push_back(cpu::bf16_bits(v));
  return out;
}

TEST(Bf16Copies, EveryOptimizerRewritesTheCopyFromTheUpdatedValue) {
  for (const std::string name : {"sgd", "momentum", "nesterov", "adam", "adamw"}) {
    SCOPED_TRACE(name);
    FixedProblem with({1, 7, 33, 1000}), without({1, 7, 33, 1000});
    std::vector<Parameter*> params = with.parameters();
    for (std::size_t i = 0; i < params.size(); ++i)
      if (i != 2)  // parameter 2 keeps no copy
        params[i]->bf16 = Tensor::empty(params[i]->value.shape(), DType::bf16);
    auto opt = make_optimizer(name, params, 0.05f, {.weight_decay = 0.01f});
    auto plain = make_optimizer(name, without.parameters(), 0.05f, {.weight_decay = 0.01f});
    for (int step = 0; step < 4; ++step) {
      with.set_gradients(step);
      without.set_gradients(step);
      opt->step();
      plain->step();
      for (std::size_t i = 0; i < params.size(); ++i) {
        EXPECT_EQ(with.value(i).to_vector<float>(), without.value(i).to_vector<float>()) << "parameter " << i;
        if (i != 2) EXPECT_EQ(bits_of(params[i]->bf16), rounded(params[i]->value)) << "parameter " << i;
      }
      EXPECT_FALSE(params[2]->bf16.defined());
    }
  }
}

TEST(Bf16Copies, LinearMakesItsCopyAtTheFirstForwardAndLoadingResetsIt) {
  if (!onednn_built() || !cpu_has_bf16_instructions())
    GTEST_SKIP() << "copies are kept only on the oneDNN path of a CPU with bf16 instructions";
  const MatmulPrecision old = matmul_precision();
  const CpuCompute old_compute = cpu_compute();
  set_cpu_compute(CpuCompute::onednn);
  set_matmul_precision(MatmulPrecision::bf16);
  Generator gen(3);
  Linear layer(33, 7, gen);
  EXPECT_FALSE(layer.weight().bf16.defined());
  layer.forward(testing::random_tensor(Shape{5, 33}, 4));
  ASSERT_TRUE(layer.weight().bf16.defined());
  EXPECT_EQ(bits_of(layer.weight().bf16), rounded(layer.weight().value));
  invalidate_bf16_copies(layer);
  EXPECT_FALSE(layer.weight().bf16.defined());
  set_matmul_precision(MatmulPrecision::fp32);
  layer.forward(testing::random_tensor(Shape{5, 33}, 4));
  EXPECT_FALSE(layer.weight().bf16.defined()) << "fp32 keeps no copy";
  set_matmul_precision(old);
  set_cpu_compute(old_compute);
}

}  // namespace
}  // namespace kiln
