// BatchNorm1d on the CPU: training normalises with the batch's biased variance and moves the
// running statistics towards the unbiased one (checked against a hand computation); eval uses
// the running statistics; gradients for (N, C) and (N, C, L); buffers; the error messages.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/core/ops.h"
#include "kiln/layers/batch_norm.h"
#include "kiln/layers/linear.h"
#include "kiln/models/sequential.h"
#include "tests/support/gradient_check.h"
#include "tests/support/tensor_testing.h"

using kiln::BatchNorm1d;
using kiln::Shape;
using kiln::Tensor;

namespace {
void set(Tensor& t, const Tensor& values) { kiln::copy(values, t); }
}  // namespace

TEST(BatchNorm1d, TrainingNormalisesAndUpdatesRunningStatisticsAsPyTorch) {
  constexpr std::int64_t n = 7, c = 3;
  BatchNorm1d bn(c);
  const Tensor x = kiln::testing::random_tensor({n, c}, 1, -2.0f, 5.0f);
  const auto xv = x.to_vector<float>();
  const auto y = bn.forward(x).to_vector<float>();
  const auto rm = bn.running_mean().to_vector<float>(), rv = bn.running_var().to_vector<float>();
  double batch_mean[c];
  for (std::int64_t ch = 0; ch < c; ++ch) {
    double mean = 0.0, squares = 0.0;
    for (std::int64_t i = 0; i < n; ++i) mean += xv[i * c + ch];
    mean /= n;
    batch_mean[ch] = mean;
    for (std::int64_t i = 0; i < n; ++i) squares += std::pow(xv[i * c + ch] - mean, 2);
    const double biased = squares / n, unbiased = squares / (n - 1);
    for (std::int64_t i = 0; i < n; ++i)
      EXPECT_NEAR(y[i * c + ch], (xv[i * c + ch] - mean) / std::sqrt(biased + 1e-5), 1e-5);
    EXPECT_NEAR(rm[ch], 0.9 * 0.0 + 0.1 * mean, 1e-6);
    EXPECT_NEAR(rv[ch], 0.9 * 1.0 + 0.1 * unbiased, 1e-6);
  }
  // A second step moves them again, from where the first left them.
  bn.forward(x);
  const auto rm2 = bn.running_mean().to_vector<float>();
  for (std::int64_t ch = 0; ch < c; ++ch)
    EXPECT_NEAR(rm2[ch], 0.9 * rm[ch] + 0.1 * batch_mean[ch], 1e-6);
}

TEST(BatchNorm1d, EvalNormalisesWithTheRunningStatisticsAndLeavesThemAlone) {
  BatchNorm1d bn(2, 1e-3f);
  set(bn.running_mean(), Tensor::from_vector(std::vector<float>{1.0f, -2.0f}, {2}));
  set(bn.running_var(), Tensor::from_vector(std::vector<float>{4.0f, 0.25f}, {2}));
  set(bn.weight().value, Tensor::from_vector(std::vector<float>{2.0f, -1.0f}, {2}));
  set(bn.bias().value, Tensor::from_vector(std::vector<float>{0.5f, 3.0f}, {2}));
  bn.eval();
  const Tensor x = kiln::testing::random_tensor({1, 2, 5}, 2);  // one sample is fine in eval
  const auto xv = x.to_vector<float>(), y = bn.forward(x).to_vector<float>();
  const double mean[] = {1.0, -2.0}, var[] = {4.0, 0.25}, g[] = {2.0, -1.0}, b[] = {0.5, 3.0};
  for (int i = 0; i < 10; ++i) {
    const int ch = i / 5;
    EXPECT_NEAR(y[i], (xv[i] - mean[ch]) / std::sqrt(var[ch] + 1e-3) * g[ch] + b[ch], 1e-5);
  }
  EXPECT_EQ(bn.running_mean().to_vector<float>(), (std::vector<float>{1.0f, -2.0f}));
  EXPECT_EQ(bn.running_var().to_vector<float>(), (std::vector<float>{4.0f, 0.25f}));
}

TEST(BatchNorm1d, BackwardMatchesFiniteDifferences) {
  for (const Shape& shape : {Shape{8, 3}, Shape{3, 2, 5}}) {
    BatchNorm1d bn(shape[1]);
    set(bn.weight().value, kiln::testing::random_tensor({shape[1]}, 3, 0.5f, 1.5f));
    set(bn.bias().value, kiln::testing::random_tensor({shape[1]}, 4));
    EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
        bn, kiln::testing::random_tensor(shape, 5, -2.0f, 2.0f)))
        << shape.str();
  }
}

TEST(BatchNorm1d, RegistersRunningStatisticsAsBuffersNotParameters) {
  kiln::Generator gen(1);
  kiln::Sequential net;
  net.emplace<kiln::Linear>(4, 3, gen).emplace<BatchNorm1d>(3);
  std::vector<std::string> names;
  for (const kiln::Buffer* b : std::as_const(net).buffers()) names.push_back(b->name);
  EXPECT_EQ(names, (std::vector<std::string>{"layers.1.running_mean", "layers.1.running_var"}));
  EXPECT_EQ(net.parameter_count(), 4 * 3 + 3 + 2 * 3);
  BatchNorm1d bn(3);
  EXPECT_EQ(bn.running_var().to_vector<float>(), (std::vector<float>{1.0f, 1.0f, 1.0f}));
  EXPECT_EQ(bn.describe(), "BatchNorm1d(3, eps 1e-05, momentum 0.1)");
}

TEST(BatchNorm1d, RejectsAWrongFeatureCountAndASingleValuePerChannel) {
  BatchNorm1d bn(64);
  try {
    bn.forward(Tensor::zeros({2, 63}));
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("(batch, 64)"), std::string::npos) << m;
    EXPECT_NE(m.find("(2, 63)"), std::string::npos) << m;
  }
  try {
    bn.forward(Tensor::zeros({1, 64}));
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than one value per channel"), std::string::npos)
        << e.what();
  }
  bn.eval();
  bn.forward(Tensor::zeros({1, 64}));
  bn.train();
  EXPECT_THROW(bn.backward(Tensor::zeros({1, 64})), kiln::Error);  // the forward was in eval
}
