// The bf16 weight copies of MatmulPrecision::bf16 on the CPU (layers/bf16_shadow.h): every
// optimizer rewrites a parameter's copy from its new value in the update's own pass, the exact
// round-to-nearest-even of the value; a Linear makes it at its first forward on a bf16 CPU (any
// machine, through the CPU description), and loading or moving values resets it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kiln/core/cpu/bf16.h"
#include "kiln/core/cpu_compute.h"
#include "kiln/core/cpu_description.h"
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

// Also a copy made after the optimizer, as a layer makes it; the same values as training without
// copies, and parameters without a copy left alone.
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
        EXPECT_EQ(with.value(i).to_vector<float>(), without.value(i).to_vector<float>())
            << "parameter " << i;
        if (i != 2)
          EXPECT_EQ(bits_of(shadow(*params[i])), rounded(params[i]->value)) << "parameter " << i;
      }
      EXPECT_FALSE(shadow(*params[2]).defined());
    }
  }
}

// Whether a CPU described as `name` keeps copies: AVX-512 bf16 and AMX do, AVX2 and plain
// AVX-512 do not. Each branch runs on any machine: a described bf16 CPU on one without bf16
// kernels multiplies its copies widened to fp32 (core/cpu/onednn/runtime.h).
struct Described {
  const char* name;
  bool keeps_copies;
};
constexpr Described kDescribed[] = {
    {"zen3", false}, {"skylake-sp", false}, {"zen4", true}, {"sapphire-rapids", true}};

TEST(Bf16Copies, LinearMakesItsCopyAtTheFirstForwardOnABf16CpuAndLoadingResetsIt) {
  if (!onednn_built())
    GTEST_SKIP() << "copies are kept only on the oneDNN path, absent from this build";
  const MatmulPrecision old = matmul_precision();
  const CpuCompute old_compute = cpu_compute();
  set_cpu_compute(CpuCompute::onednn);
  for (const Described& d : kDescribed) {
    SCOPED_TRACE(d.name);
    const ScopedCpuDescription cpu(named_cpu_description(d.name));
    set_matmul_precision(MatmulPrecision::bf16);
    Generator gen(3);
    Linear layer(33, 7, gen);
    EXPECT_FALSE(shadow(layer.weight()).defined());
    layer.forward(testing::random_tensor(Shape{5, 33}, 4));
    ASSERT_EQ(shadow(layer.weight()).defined(), d.keeps_copies);
    if (!d.keeps_copies) continue;
    EXPECT_EQ(bits_of(shadow(layer.weight())), rounded(layer.weight().value));
    parameter_values_changed(layer);
    EXPECT_FALSE(shadow(layer.weight()).defined());
    set_matmul_precision(MatmulPrecision::fp32);
    layer.forward(testing::random_tensor(Shape{5, 33}, 4));
    EXPECT_FALSE(shadow(layer.weight()).defined()) << "fp32 keeps no copy";
  }
  set_matmul_precision(old);
  set_cpu_compute(old_compute);
}

// The same Linear, forward and backward, on every described CPU: the bf16 branch (the weight's
// copy, the gradient written as bf16) gives what rounding in fp32 gives, to the accumulation
// order of the kernels that ran.
TEST(Bf16Copies, EveryDescribedCpuComputesTheSameBf16Products) {
  if (!onednn_built())
    GTEST_SKIP() << "the described kernel sets are oneDNN's, absent from this build";
  const MatmulPrecision old = matmul_precision();
  const CpuCompute old_compute = cpu_compute();
  set_cpu_compute(CpuCompute::onednn);
  set_matmul_precision(MatmulPrecision::bf16);
  const Tensor x = testing::random_tensor(Shape{7, 33}, 5),
               dy = testing::random_tensor(Shape{7, 9}, 6);
  std::vector<std::vector<float>> outputs;
  for (const Described& d : kDescribed) {
    const ScopedCpuDescription cpu(named_cpu_description(d.name));
    Generator gen(3);
    Linear layer(33, 9, gen);
    const std::vector<float> y = layer.forward(x).to_vector<float>();
    std::vector<float> all = y;
    for (float v : layer.backward(dy).to_vector<float>()) all.push_back(v);
    for (float v : layer.weight().grad.to_vector<float>()) all.push_back(v);
    outputs.push_back(all);
  }
  for (std::size_t k = 1; k < outputs.size(); ++k)
    for (std::size_t i = 0; i < outputs[0].size(); ++i)
      EXPECT_NEAR(outputs[k][i], outputs[0][i], 1e-4f * (1.0f + std::abs(outputs[0][i])))
          << kDescribed[k].name << " against " << kDescribed[0].name << " at " << i;
  set_matmul_precision(old);
  set_cpu_compute(old_compute);
}

}  // namespace
}  // namespace kiln
