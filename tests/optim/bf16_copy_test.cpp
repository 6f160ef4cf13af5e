// The bf16 weight copies of MatmulPrecision::bf16 on the CPU (layers/bf16_shadow.h): every
// optimizer rewrites a parameter's copy from its new value in the update's own pass (also a copy
// made after the optimizer, as a layer makes it), the same values as training without copies, and
// leaves parameters without a copy alone; the copy is the exact round-to-nearest-even of the
// value; a Linear makes it at its first forward, and loading or moving values resets it.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kiln/core/cpu/bf16.h"
#include "kiln/core/cpu_compute.h"
#include "kiln/core/precision.h"
#include "kiln/layers/bf16_shadow.h"
#include "kiln/layers/linear.h"
#include "kiln/spec/optimizer_spec.h"
#include "tests/optim/optim_testing.h"

namespace kiln {
namespace {

using testing::FixedProblem;

Tensor& shadow(Parameter& p) { return p.extensions.get<Bf16Shadow>().copy; }

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
    auto opt = make_optimizer(name, params, 0.05f, {.weight_decay = 0.01f});
    // Made after the optimizer, as a layer's first forward makes them.
    for (std::size_t i = 0; i < params.size(); ++i)
      if (i != 2)  // parameter 2 keeps no copy
        shadow(*params[i]) = Tensor::empty(params[i]->value.shape(), DType::bf16);
    auto plain = make_optimizer(name, without.parameters(), 0.05f, {.weight_decay = 0.01f});
    for (int step = 0; step < 4; ++step) {
      with.set_gradients(step);
      without.set_gradients(step);
      opt->step();
      plain->step();
      for (std::size_t i = 0; i < params.size(); ++i) {
        EXPECT_EQ(with.value(i).to_vector<float>(), without.value(i).to_vector<float>()) << "parameter " << i;
        if (i != 2) EXPECT_EQ(bits_of(shadow(*params[i])), rounded(params[i]->value)) << "parameter " << i;
      }
      EXPECT_FALSE(shadow(*params[2]).defined());
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
  EXPECT_FALSE(shadow(layer.weight()).defined());
  layer.forward(testing::random_tensor(Shape{5, 33}, 4));
  ASSERT_TRUE(shadow(layer.weight()).defined());
  EXPECT_EQ(bits_of(shadow(layer.weight())), rounded(layer.weight().value));
  parameter_values_changed(layer);
  EXPECT_FALSE(shadow(layer.weight()).defined());
  set_matmul_precision(MatmulPrecision::fp32);
  layer.forward(testing::random_tensor(Shape{5, 33}, 4));
  EXPECT_FALSE(shadow(layer.weight()).defined()) << "fp32 keeps no copy";
  set_matmul_precision(old);
  set_cpu_compute(old_compute);
}

}  // namespace
}  // namespace kiln
