// kiln::uniform_, normal_ and the Kaiming/Xavier initialisers on the CPU: the Philox formulas bit
// for bit, determinism in (seed, offset), disjoint draws from one Generator, the statistics of
// 100k samples, and the bounds and spreads PyTorch's formulas give.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "kiln/core/philox.h"
#include "kiln/core/random.h"
#include "tests/support/tensor_testing.h"

namespace kiln {
namespace {

constexpr std::int64_t kSamples = 100003;

struct Moments {
  double mean, stddev;
};

Moments moments(const std::vector<float>& v) {
  double sum = 0.0, sum_sq = 0.0;
  for (float x : v) sum += x, sum_sq += double(x) * x;
  const double mean = sum / v.size();
  return {mean, std::sqrt(sum_sq / v.size() - mean * mean)};
}

std::vector<float> draw_uniform(std::int64_t n, std::uint64_t seed, std::uint64_t offset,
                                float low = 0.0f, float high = 1.0f) {
  Generator gen(seed);
  gen.set_state(seed, offset);
  Tensor x = Tensor::empty(Shape{n});
  uniform_(x, low, high, gen);
  return x.to_vector<float>();
}

std::vector<float> draw_normal(std::int64_t n, std::uint64_t seed, std::uint64_t offset,
                               float mean = 0.0f, float stddev = 1.0f) {
  Generator gen(seed);
  gen.set_state(seed, offset);
  Tensor x = Tensor::empty(Shape{n});
  normal_(x, mean, stddev, gen);
  return x.to_vector<float>();
}

TEST(Random, UniformIsThePhiloxFormulaBitForBit) {
  constexpr std::uint64_t seed = 0x0123456789abcdefULL, offset = 1ULL << 33;
  const std::vector<float> v = draw_uniform(1000, seed, offset, -2.0f, 3.0f);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const float u = philox::to_unit(philox::draw(seed, offset + i).x);
    ASSERT_EQ(v[i], std::fma(5.0f, u, -2.0f)) << "element " << i;
  }
}

TEST(Random, NormalIsBoxMullerOnPhiloxWords) {
  constexpr std::uint64_t seed = 42, offset = 7;
  const std::vector<float> v = draw_normal(1000, seed, offset, 1.5f, 2.0f);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const philox::Uint4 w = philox::draw(seed, offset + i);
    const double u1 = (double(w.x >> 8) + 1.0) / 16777216.0, u2 = double(w.y >> 8) / 16777216.0;
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    ASSERT_NEAR(v[i], 1.5 + 2.0 * z, 1e-5 * (1.0 + std::abs(2.0 * z))) << "element " << i;
  }
}

TEST(Random, SameSeedAndOffsetGiveIdenticalNumbers) {
  EXPECT_EQ(draw_uniform(1000, 9, 33), draw_uniform(1000, 9, 33));
  EXPECT_EQ(draw_normal(kSamples, 9, 33), draw_normal(kSamples, 9, 33));  // threaded path
}

TEST(Random, ElementDependsOnlyOnSeedAndOffsetPlusIndex) {
  const std::vector<float> whole = draw_normal(1000, 5, 0);
  const std::vector<float> tail = draw_normal(7, 5, 993);
  EXPECT_EQ(tail, std::vector<float>(whole.end() - 7, whole.end()));
}

TEST(Random, DifferentOffsetsAndSeedsGiveDifferentNumbers) {
  const std::vector<float> base = draw_uniform(33, 1, 0);
  EXPECT_NE(base, draw_uniform(33, 1, 1));
  EXPECT_NE(base, draw_uniform(33, 2, 0));
  EXPECT_NE(base, draw_uniform(33, 1ULL << 32, 0));  // the seed's high word counts too
}

TEST(Random, ConsecutiveDrawsFromOneGeneratorUseDisjointCounters) {
  Generator gen(17);
  Tensor first = Tensor::empty(Shape{33}), second = Tensor::empty(Shape{33});
  normal_(first, 0.0f, 1.0f, gen);
  normal_(second, 0.0f, 1.0f, gen);
  EXPECT_EQ(gen.offset(), 66u);
  EXPECT_EQ(second.to_vector<float>(), draw_normal(33, 17, 33));
  EXPECT_NE(first.to_vector<float>(), second.to_vector<float>());
}

TEST(Random, UniformStaysInRangeWithUniformMoments) {
  const std::vector<float> v = draw_uniform(kSamples, 3, 0, -2.0f, 5.0f);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), -2.0f);
  EXPECT_LT(*std::max_element(v.begin(), v.end()), 5.0f);
  const Moments m = moments(v);
  EXPECT_NEAR(m.mean, 1.5, 0.03);                      // std error 0.0064
  EXPECT_NEAR(m.stddev, 7.0 / std::sqrt(12.0), 0.02);  // 2.0207, std error 0.0045
}

TEST(Random, NormalHasRequestedMeanSpreadAndShape) {
  const std::vector<float> v = draw_normal(kSamples, 4, 0, -1.0f, 3.0f);
  const Moments m = moments(v);
  EXPECT_NEAR(m.mean, -1.0, 0.05);    // std error 0.0095
  EXPECT_NEAR(m.stddev, 3.0, 0.035);  // std error 0.0067
  // Within one and two standard deviations: 68.27% and 95.45% of a true normal.
  const auto within = [&](double k) {
    return std::count_if(v.begin(), v.end(), [&](float x) { return std::abs(x + 1.0) < 3.0 * k; }) /
           double(v.size());
  };
  EXPECT_NEAR(within(1.0), 0.6827, 0.008);
  EXPECT_NEAR(within(2.0), 0.9545, 0.005);
  for (float x : v) ASSERT_TRUE(std::isfinite(x));
}

TEST(Init, KaimingUniformStaysWithinPyTorchBound) {
  // (out, in) = (33, 1000); a = 0.2: gain sqrt(2 / 1.04), bound gain * sqrt(3 / fan).
  Generator gen(5);
  Tensor w = Tensor::empty(Shape{33, 1000});
  kaiming_uniform_(w, gen, 0.2f);
  const double bound = std::sqrt(2.0 / 1.04) * std::sqrt(3.0 / 1000.0);
  const auto v = w.to_vector<float>();
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  EXPECT_GE(*lo, -bound * (1 + 1e-6));
  EXPECT_LE(*hi, bound * (1 + 1e-6));
  EXPECT_GT(*hi, 0.99 * bound);  // 33k draws reach the edge
  EXPECT_LT(*lo, -0.99 * bound);
}

TEST(Init, KaimingNormalHasPyTorchStddevForFanOutOfConvWeight) {
  // Conv weight (out 7, in 33, 5, 5): fan_out = 7 * 25 = 175, ReLU gain sqrt(2).
  Generator gen(6);
  Tensor w = Tensor::empty(Shape{7, 33, 5, 5});
  kaiming_normal_(w, gen, 0.0f, FanMode::fan_out);
  const Moments m = moments(w.to_vector<float>());
  const double stddev = std::sqrt(2.0) / std::sqrt(175.0);
  EXPECT_NEAR(m.mean, 0.0, 0.06 * stddev);
  EXPECT_NEAR(m.stddev, stddev, 0.04 * stddev);  // 5775 samples: std error 0.9%
}

TEST(Init, XavierUniformStaysWithinPyTorchBound) {
  Generator gen(7);
  Tensor w = Tensor::empty(Shape{1000, 33});
  xavier_uniform_(w, gen, 1.5f);
  const double bound = 1.5 * std::sqrt(6.0 / (1000 + 33));
  const auto v = w.to_vector<float>();
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  EXPECT_GE(*lo, -bound * (1 + 1e-6));
  EXPECT_LE(*hi, bound * (1 + 1e-6));
  EXPECT_GT(*hi, 0.99 * bound);
  EXPECT_LT(*lo, -0.99 * bound);
  EXPECT_NEAR(moments(v).stddev, bound / std::sqrt(3.0), 0.02 * bound);
}

TEST(Init, XavierNormalHasPyTorchStddev) {
  Generator gen(8);
  Tensor w = Tensor::empty(Shape{333, 301});
  xavier_normal_(w, gen);
  const Moments m = moments(w.to_vector<float>());
  const double stddev = std::sqrt(2.0 / (333 + 301));
  EXPECT_NEAR(m.mean, 0.0, 0.02 * stddev);
  EXPECT_NEAR(m.stddev, stddev, 0.015 * stddev);  // 100k samples: std error 0.22%
}

TEST(Random, RejectsIntegerTensor) {
  Generator gen(1);
  Tensor x = Tensor::zeros(Shape{7}, DType::i32);
  EXPECT_THROW(uniform_(x, 0.0f, 1.0f, gen), Error);
  EXPECT_THROW(normal_(x, 0.0f, 1.0f, gen), Error);
}

}  // namespace
}  // namespace kiln
