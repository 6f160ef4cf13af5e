// CausalSelfAttention on the CPU: the output against a naive per-head loop in double, causality,
// gradients of the input and all four parameters against finite differences (also on the fused
// path of long contexts), the same results on the reference and oneDNN paths, and the parameter
// names nanoGPT uses.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/core/cpu_compute.h"
#include "kiln/core/ops.h"
#include "kiln/core/precision.h"
#include "kiln/layers/causal_self_attention.h"
#include "tests/support/gradient_check.h"
#include "tests/support/tensor_testing.h"

using kiln::CausalSelfAttention;
using kiln::Shape;
using kiln::Tensor;

namespace {

// y = c_proj(merge(softmax_causal(q kᵀ / sqrt(D)) v)) with q, k, v from c_attn, in double.
std::vector<double> naive_attention(CausalSelfAttention& m, const Tensor& x, std::int64_t heads) {
  const std::int64_t b = x.size(0), t = x.size(1), c = x.size(2), d = c / heads;
  const auto xv = x.to_vector<float>();
  const auto wa = m.c_attn().weight().value.to_vector<float>();
  const auto ba = m.c_attn().bias()->value.to_vector<float>();
  const auto wp = m.c_proj().weight().value.to_vector<float>();
  const auto bp = m.c_proj().bias()->value.to_vector<float>();
  std::vector<double> qkv(static_cast<std::size_t>(b * t * 3 * c));
  for (std::int64_t r = 0; r < b * t; ++r)
    for (std::int64_t o = 0; o < 3 * c; ++o) {
      double s = ba[o];
      for (std::int64_t i = 0; i < c; ++i) s += static_cast<double>(xv[r * c + i]) * wa[o * c + i];
      qkv[r * 3 * c + o] = s;
    }
  std::vector<double> merged(static_cast<std::size_t>(b * t * c), 0.0);
  for (std::int64_t n = 0; n < b; ++n)
    for (std::int64_t hh = 0; hh < heads; ++hh)
      for (std::int64_t i = 0; i < t; ++i) {
        std::vector<double> p(static_cast<std::size_t>(i + 1));
        double mx = -1e300, sum = 0.0;
        for (std::int64_t j = 0; j <= i; ++j) {
          double s = 0.0;
          for (std::int64_t e = 0; e < d; ++e)
            s += qkv[(n * t + i) * 3 * c + hh * d + e] * qkv[(n * t + j) * 3 * c + c + hh * d + e];
          p[j] = s / std::sqrt(static_cast<double>(d));
          mx = std::max(mx, p[j]);
        }
        for (auto& v : p) sum += (v = std::exp(v - mx));
        for (std::int64_t e = 0; e < d; ++e) {
          double s = 0.0;
          for (std::int64_t j = 0; j <= i; ++j)
            s += p[j] / sum * qkv[(n * t + j) * 3 * c + 2 * c + hh * d + e];
          merged[(n * t + i) * c + hh * d + e] = s;
        }
      }
  std::vector<double> y(static_cast<std::size_t>(b * t * c));
  for (std::int64_t r = 0; r < b * t; ++r)
    for (std::int64_t o = 0; o < c; ++o) {
      double s = bp[o];
      for (std::int64_t i = 0; i < c; ++i) s += merged[r * c + i] * wp[o * c + i];
      y[r * c + o] = s;
    }
  return y;
}

void expect_naive_attention(CausalSelfAttention& attn, const Tensor& x, std::int64_t heads) {
  const std::vector<double> expected = naive_attention(attn, x, heads);
  const auto y = attn.forward(x).to_vector<float>();
  ASSERT_EQ(y.size(), expected.size());
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], expected[i], 1e-5) << i;
}

}  // namespace

TEST(CausalSelfAttention, MatchesANaivePerHeadLoop) {
  kiln::Generator gen(1);
  CausalSelfAttention attn(12, 3, 0.0f, gen);
  expect_naive_attention(attn, kiln::testing::random_tensor({2, 5, 12}, 2, -1.0f, 1.0f), 3);
}

TEST(CausalSelfAttention, AnOutputDependsOnNoLaterPosition) {
  kiln::Generator gen(3);
  CausalSelfAttention attn(8, 2, 0.0f, gen);
  Tensor x = kiln::testing::random_tensor({1, 6, 8}, 4);
  const auto before = attn.forward(x).to_vector<float>();
  auto values = x.to_vector<float>();
  for (int i = 4 * 8; i < 5 * 8; ++i) values[i] += 1.0f;  // position 4 only
  const auto after = attn.forward(Tensor::from_vector(values, {1, 6, 8})).to_vector<float>();
  for (int i = 0; i < 4 * 8; ++i) EXPECT_EQ(after[i], before[i]) << "position " << i / 8;
  bool changed = false;
  for (int i = 4 * 8; i < 6 * 8; ++i) changed = changed || after[i] != before[i];
  EXPECT_TRUE(changed) << "positions 4 and 5 see position 4";
}

TEST(CausalSelfAttention, BackwardMatchesFiniteDifferences) {
  kiln::Generator gen(5);
  CausalSelfAttention attn(8, 2, 0.0f, gen);
  kiln::GradientCheckOptions options;
  options.step = 1e-2f;
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
      attn, kiln::testing::random_tensor({2, 5, 8}, 6, -1.0f, 1.0f), options));
}

// On a GPU the layer runs the fused op under bf16 products where cuDNN's fused attention takes
// the head size, at every length; elsewhere it keeps the unfused cuBLAS products.
TEST(CausalSelfAttention, AGpuRunsFusedOnCudnnUnderBf16Only) {
  const kiln::Device gpu = kiln::Device::cuda(0);  // a value: no GPU is touched
  const kiln::MatmulPrecision old = kiln::matmul_precision();
  kiln::set_matmul_precision(kiln::MatmulPrecision::bf16);
  EXPECT_TRUE(CausalSelfAttention::runs_fused(gpu, 64, 64, false));
  EXPECT_TRUE(CausalSelfAttention::runs_fused(gpu, 1, 128, false));
  EXPECT_FALSE(CausalSelfAttention::runs_fused(gpu, 64, 60, false)) << "not a multiple of 8";
  EXPECT_FALSE(CausalSelfAttention::runs_fused(gpu, 64, 136, false)) << "past 128";
  EXPECT_FALSE(CausalSelfAttention::runs_fused(gpu, 64, 64, true)) << "dropout";
  for (const auto precision : {kiln::MatmulPrecision::fp32, kiln::MatmulPrecision::tf32}) {
    kiln::set_matmul_precision(precision);
    EXPECT_FALSE(CausalSelfAttention::runs_fused(gpu, 512, 64, false))
        << kiln::matmul_precision_name(precision);
  }
  kiln::set_matmul_precision(old);
}

// From 256 positions the CPU runs the fused op (runs_fused), below them the unfused products.
TEST(CausalSelfAttention, TheFusedPathMatchesTheNaiveLoopAndFiniteDifferences) {
  ASSERT_TRUE(CausalSelfAttention::runs_fused(kiln::Device::cpu(), 256, 16, false));
  ASSERT_FALSE(CausalSelfAttention::runs_fused(kiln::Device::cpu(), 255, 16, false));
  ASSERT_FALSE(CausalSelfAttention::runs_fused(kiln::Device::cpu(), 256, 16, true)) << "dropout";
  kiln::Generator gen(7);
  CausalSelfAttention attn(4, 2, 0.0f, gen);
  const Tensor x = kiln::testing::random_tensor({1, 260, 4}, 8, -1.0f, 1.0f);
  expect_naive_attention(attn, x, 2);
  kiln::GradientCheckOptions options;
  options.step = 1e-2f;
  options.max_elements = 8;
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(attn, x, options));
}

TEST(CausalSelfAttention, OnednnAndTheReferenceAgree) {
  const Tensor x = kiln::testing::random_tensor({3, 7, 12}, 8);
  const Tensor dy = kiln::testing::random_tensor({3, 7, 12}, 9);
  if (!kiln::onednn_built()) GTEST_SKIP() << "kiln was built without oneDNN";
  std::vector<std::vector<float>> results;
  const kiln::CpuCompute old = kiln::cpu_compute();
  for (kiln::CpuCompute compute : {kiln::CpuCompute::reference, kiln::CpuCompute::onednn}) {
    kiln::set_cpu_compute(compute);
    kiln::Generator gen(7);
    CausalSelfAttention attn(12, 4, 0.0f, gen);
    results.push_back(attn.forward(x).to_vector<float>());
    results.push_back(attn.backward(dy).to_vector<float>());
    results.push_back(attn.c_attn().weight().grad.to_vector<float>());
  }
  kiln::set_cpu_compute(old);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_TRUE(kiln::testing::all_close(results[i + 3], results[i], 1e-4f, 1e-5f)) << i;
}

TEST(CausalSelfAttention, NamesItsParametersAsNanoGpt) {
  kiln::Generator gen(1);
  CausalSelfAttention attn(8, 2, 0.1f, gen);
  std::vector<std::string> names;
  for (const kiln::Parameter* p : attn.parameters()) names.push_back(p->name);
  EXPECT_EQ(names, (std::vector<std::string>{"c_attn.weight", "c_attn.bias", "c_proj.weight",
                                             "c_proj.bias"}));
  EXPECT_THROW(CausalSelfAttention(10, 3, 0.0f, gen), kiln::Error);
}
