// MaxPool2d, AvgPool2d and the pool2d ops on the CPU: naive-loop references at odd sizes with
// overlapping, padded windows; first-maximum routing on ties; padding never chosen by max
// pooling and counted by average pooling; gradient checks; describe() and the error messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "kiln/core/ops.h"
#include "kiln/layers/pool2d.h"
#include "tests/support/gradient_check.h"
#include "tests/support/tensor_testing.h"

using kiln::Shape;
using kiln::Tensor;

namespace {

// N=2, C=3, 7x7, kernel 3, stride 2, padding 1 -> 4x4: windows overlap and cross the padding.
constexpr std::int64_t kN = 2, kC = 3, kH = 7, kW = 7, kK = 3, kS = 2, kP = 1, kO = 4;

// Naive pooling: for each output, the in-image elements of its window, in row-major order.
template <typename F> void for_each_window(F&& f) {
  for (std::int64_t p = 0; p < kN * kC; ++p)
    for (std::int64_t oh = 0; oh < kO; ++oh)
      for (std::int64_t ow = 0; ow < kO; ++ow) {
        std::vector<std::int64_t> members;
        for (std::int64_t i = 0; i < kK; ++i)
          for (std::int64_t j = 0; j < kK; ++j) {
            const std::int64_t ih = oh * kS - kP + i, iw = ow * kS - kP + j;
            if (ih >= 0 && ih < kH && iw >= 0 && iw < kW) members.push_back(ih * kW + iw);
          }
        f(p, (p * kO + oh) * kO + ow, members);
      }
}

// Distinct values 0.05 apart in random order: no two elements of a window come within the
// checker's step (0.01) of each other, so no perturbation changes which one is the maximum.
Tensor spaced_values(const Shape& shape, std::uint32_t seed) {
  std::vector<float> v(static_cast<std::size_t>(shape.numel()));
  std::iota(v.begin(), v.end(), 0.0f);
  for (float& e : v) e = (e - static_cast<float>(v.size()) / 2) * 0.05f;
  std::mt19937 engine(seed);
  std::shuffle(v.begin(), v.end(), engine);
  return Tensor::from_vector(v, shape);
}

}  // namespace

TEST(MaxPool2d, ForwardAndArgmaxMatchANaiveLoop) {
  const Tensor x = kiln::testing::random_tensor({kN, kC, kH, kW}, 1);
  Tensor y = Tensor::empty({kN, kC, kO, kO}),
         argmax = Tensor::empty({kN, kC, kO, kO}, kiln::DType::i32);
  kiln::max_pool2d_forward(x, y, argmax, {.kernel = kK, .stride = kS, .padding = kP});
  const auto xv = x.to_vector<float>(), yv = y.to_vector<float>();
  const auto av = argmax.to_vector<std::int32_t>();
  for_each_window([&](std::int64_t p, std::int64_t o, const std::vector<std::int64_t>& members) {
    std::int64_t best = members[0];
    for (std::int64_t m : members)
      if (xv[p * kH * kW + m] > xv[p * kH * kW + best]) best = m;
    EXPECT_EQ(av[o], best) << "output " << o;
    EXPECT_EQ(yv[o], xv[p * kH * kW + best]) << "output " << o;
  });
}

TEST(AvgPool2d, ForwardCountsThePaddingAsPyTorchDoes) {
  kiln::AvgPool2d pool(kK, kS, kP);
  const Tensor x = kiln::testing::random_tensor({kN, kC, kH, kW}, 2);
  const auto yv = pool.forward(x).to_vector<float>();
  const auto xv = x.to_vector<float>();
  std::vector<float> expected(yv.size());
  for_each_window([&](std::int64_t p, std::int64_t o, const std::vector<std::int64_t>& members) {
    double sum = 0.0;
    for (std::int64_t m : members) sum += xv[p * kH * kW + m];
    expected[o] = static_cast<float>(sum / (kK * kK));  // always kernel², padding included
  });
  EXPECT_TRUE(kiln::testing::all_close(yv, expected, 1e-6f, 1e-7f));
}

TEST(MaxPool2d, NeverPicksThePadding) {
  kiln::MaxPool2d pool(3, 2, 1);
  const Tensor x = kiln::testing::random_tensor({1, 2, 5, 5}, 3, -3.0f, -1.0f);  // all negative
  for (float v : pool.forward(x).to_vector<float>()) EXPECT_LT(v, -1.0f + 1e-6f);
}

TEST(MaxPool2d, BackwardRoutesEachGradientToTheFirstMaximum) {
  // Every element ties; overlapping 2x2 windows at stride 1 each pick their top-left element.
  kiln::MaxPool2d pool(2, 1);
  pool.forward(Tensor::full({1, 1, 3, 3}, 1.0f));
  const Tensor dx = pool.backward(Tensor::full({1, 1, 2, 2}, 1.0f));
  EXPECT_EQ(dx.to_vector<float>(), (std::vector<float>{1, 1, 0, 1, 1, 0, 0, 0, 0}));
}

TEST(Pool2d, BackwardMatchesFiniteDifferences) {
  kiln::MaxPool2d max_pool(kK, kS, kP);
  kiln::AvgPool2d avg_pool(kK, kS, kP);
  const Tensor x = spaced_values({kN, kC, kH, kW}, 4);
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(max_pool, x));
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(avg_pool, x));
  kiln::MaxPool2d plain(2);  // stride 2, no overlap; 7 -> 3 drops the last row and column
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(plain, x));
}

TEST(Pool2d, StrideDefaultsToTheKernelAndDescribesItself) {
  kiln::MaxPool2d pool(2);
  EXPECT_EQ(pool.describe(), "MaxPool2d(kernel 2, stride 2, padding 0)");
  EXPECT_EQ(pool.output_shape({5, 6, 28, 28}), (Shape{5, 6, 14, 14}));
  EXPECT_EQ(kiln::AvgPool2d(3, 1, 1).describe(), "AvgPool2d(kernel 3, stride 1, padding 1)");
  EXPECT_EQ(pool.parameters().size(), 0u);
}

TEST(Pool2d, RejectsTooMuchPaddingAndTooSmallInputs) {
  EXPECT_THROW(kiln::MaxPool2d(3, 1, 2), kiln::Error);  // padding above kernel / 2
  kiln::AvgPool2d pool(4);
  try {
    pool.forward(Tensor::zeros({1, 2, 3, 9}));
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("3x9"), std::string::npos) << m;
    EXPECT_NE(m.find("smaller than the 4x4 window"), std::string::npos) << m;
  }
  EXPECT_THROW(pool.forward(Tensor::zeros({2, 8, 8})), kiln::Error);
  Tensor y = Tensor::empty({1, 1, 2, 2}), argmax = Tensor::empty({1, 1, 2, 2});  // f32 argmax
  EXPECT_THROW(kiln::max_pool2d_forward(Tensor::zeros({1, 1, 4, 4}), y, argmax, {}), kiln::Error);
}

TEST(MaxPool2d, PropagatesNaN) {
  kiln::MaxPool2d pool(2);
  std::vector<float> v(16, 1.0f);
  v[5] = std::numeric_limits<float>::quiet_NaN();
  const auto y = pool.forward(Tensor::from_vector(v, {1, 1, 4, 4})).to_vector<float>();
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[1], 1.0f);
}

// The 2x2 stride-2 windows have a path of their own (core/cpu/pool2d.cpp): it must follow the
// general rule — the first maximum in row-major order, the first NaN over any number — at sizes
// whose last row and column fall outside every window (7x7 -> 3x3, 14x9 -> 7x4), with ties
// (values from a handful of levels) and NaNs in every position of a window.
TEST(MaxPool2d, TwoByTwoWindowsFollowTheGeneralRuleWithTiesAndNaNs) {
  for (const auto [h, w] : {std::pair<std::int64_t, std::int64_t>{7, 7}, {14, 9}, {28, 28}}) {
    const std::int64_t n = 3, c = 5, oh = h / 2, ow = w / 2;
    std::mt19937 engine(static_cast<std::uint32_t>(h * 100 + w));
    std::uniform_int_distribution<int> level(0, 3), one_in(0, 9);
    std::vector<float> v(static_cast<std::size_t>(n * c * h * w));
    for (float& e : v)
      e = one_in(engine) == 0 ? std::numeric_limits<float>::quiet_NaN()
                              : static_cast<float>(level(engine));
    Tensor y = Tensor::empty({n, c, oh, ow}),
           argmax = Tensor::empty({n, c, oh, ow}, kiln::DType::i32);
    kiln::max_pool2d_forward(Tensor::from_vector(v, {n, c, h, w}), y, argmax,
                             {.kernel = 2, .stride = 2});
    const auto got = y.to_vector<float>();
    const auto got_arg = argmax.to_vector<std::int32_t>();
    for (std::int64_t p = 0; p < n * c; ++p)
      for (std::int64_t i = 0; i < oh; ++i)
        for (std::int64_t j = 0; j < ow; ++j) {
          std::int64_t best = 2 * i * w + 2 * j;
          for (const std::int64_t m :
               {2 * i * w + 2 * j + 1, (2 * i + 1) * w + 2 * j, (2 * i + 1) * w + 2 * j + 1}) {
            const float a = v[static_cast<std::size_t>(p * h * w + m)],
                        b = v[static_cast<std::size_t>(p * h * w + best)];
            if (a > b || (std::isnan(a) && !std::isnan(b))) best = m;
          }
          const auto o = static_cast<std::size_t>((p * oh + i) * ow + j);
          ASSERT_EQ(got_arg[o], best)
              << h << "x" << w << " plane " << p << " window " << i << "," << j;
          const float want = v[static_cast<std::size_t>(p * h * w + best)];
          if (std::isnan(want))
            ASSERT_TRUE(std::isnan(got[o]));
          else
            ASSERT_EQ(got[o], want);
        }
  }
}
