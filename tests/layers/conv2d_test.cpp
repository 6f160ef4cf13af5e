// Conv2d and the conv2d ops on the CPU: forward and both gradients against naive loops at odd
// sizes (stride 2, padding 1, a rectangular image), the gradient check, PyTorch's init bounds,
// accumulation, thread-count independence of the weight gradient, and the error messages.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/core/cpu_compute.h"
#include "kiln/core/ops.h"
#include "kiln/core/parallel.h"
#include "kiln/layers/conv2d.h"
#include "tests/support/gradient_check.h"
#include "tests/support/tensor_testing.h"

using kiln::Conv2d;
using kiln::Shape;
using kiln::Tensor;

namespace {

struct Geometry {
  std::int64_t n, c, h, w, oc, k, stride, pad;
  std::int64_t oh() const { return (h + 2 * pad - k) / stride + 1; }
  std::int64_t ow() const { return (w + 2 * pad - k) / stride + 1; }
  // The input element under output (oh, ow) and kernel tap (i, j), or -1 in the padding.
  std::int64_t input_at(std::int64_t n_, std::int64_t c_, std::int64_t y, std::int64_t x,
                        std::int64_t i, std::int64_t j) const {
    const std::int64_t ih = y * stride - pad + i, iw = x * stride - pad + j;
    if (ih < 0 || ih >= h || iw < 0 || iw >= w) return -1;
    return ((n_ * c + c_) * h + ih) * w + iw;
  }
};

// Calls f(x index, y index, w index) for every multiply of the convolution.
template <typename F> void for_each_tap(const Geometry& g, F&& f) {
  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t o = 0; o < g.oc; ++o)
      for (std::int64_t y = 0; y < g.oh(); ++y)
        for (std::int64_t x = 0; x < g.ow(); ++x)
          for (std::int64_t c = 0; c < g.c; ++c)
            for (std::int64_t i = 0; i < g.k; ++i)
              for (std::int64_t j = 0; j < g.k; ++j) {
                const std::int64_t xi = g.input_at(n, c, y, x, i, j);
                if (xi < 0) continue;
                f(xi, ((n * g.oc + o) * g.oh() + y) * g.ow() + x,
                  ((o * g.c + c) * g.k + i) * g.k + j);
              }
}

const Geometry kStrided{2, 3, 7, 7, 4, 3, 2, 1};      // 7x7 -> 4x4
const Geometry kRectangular{3, 2, 5, 8, 5, 3, 1, 0};  // 5x8 -> 3x6

}  // namespace

TEST(Conv2d, ForwardMatchesANaiveLoop) {
  for (const Geometry& g : {kStrided, kRectangular}) {
    kiln::Generator gen(3);
    Conv2d layer(g.c, g.oc, g.k, gen, {.stride = g.stride, .padding = g.pad});
    const Tensor x = kiln::testing::random_tensor({g.n, g.c, g.h, g.w}, 1);
    const Tensor y = layer.forward(x);
    ASSERT_EQ(y.shape(), (Shape{g.n, g.oc, g.oh(), g.ow()}));
    const auto xv = x.to_vector<float>(), wv = layer.weight().value.to_vector<float>();
    const auto bv = layer.bias()->value.to_vector<float>();
    std::vector<double> sums(static_cast<std::size_t>(y.numel()), 0.0);
    for_each_tap(g, [&](auto xi, auto yi, auto wi) { sums[yi] += double(xv[xi]) * wv[wi]; });
    std::vector<float> expected(sums.size());
    const std::int64_t plane = g.oh() * g.ow();
    for (std::size_t i = 0; i < sums.size(); ++i)
      expected[i] = static_cast<float>(sums[i] + bv[(i / plane) % g.oc]);
    EXPECT_TRUE(kiln::testing::all_close(y.to_vector<float>(), expected, 1e-5f, 1e-6f));
  }
}

TEST(Conv2d, OpGradientsMatchNaiveLoopsAndAccumulate) {
  for (const Geometry& g : {kStrided, kRectangular}) {
    const Shape xs{g.n, g.c, g.h, g.w}, ys{g.n, g.oc, g.oh(), g.ow()}, ws{g.oc, g.c, g.k, g.k};
    const Tensor x = kiln::testing::random_tensor(xs, 11),
                 dy = kiln::testing::random_tensor(ys, 12);
    const Tensor w = kiln::testing::random_tensor(ws, 13);
    const kiln::Conv2dOptions o{.stride = g.stride, .padding = g.pad};
    Tensor dx = Tensor::full(xs, 7.0f);  // "=": overwritten
    kiln::conv2d_backward_data(dy, w, dx, o);
    Tensor dw = Tensor::full(ws, 0.5f), db = Tensor::full(Shape{g.oc}, -1.0f);  // "+="
    kiln::conv2d_backward_filter(x, dy, dw, db, o);

    const auto xv = x.to_vector<float>(), dyv = dy.to_vector<float>(), wv = w.to_vector<float>();
    std::vector<double> ex(xv.size(), 0.0), ew(wv.size(), 0.5), eb(g.oc, -1.0);
    for_each_tap(g, [&](auto xi, auto yi, auto wi) {
      ex[xi] += double(dyv[yi]) * wv[wi];
      ew[wi] += double(dyv[yi]) * xv[xi];
    });
    const std::int64_t plane = g.oh() * g.ow();
    for (std::size_t i = 0; i < dyv.size(); ++i) eb[(i / plane) % g.oc] += dyv[i];
    auto to_float = [](const std::vector<double>& v) {
      return std::vector<float>(v.begin(), v.end());
    };
    EXPECT_TRUE(kiln::testing::all_close(dx.to_vector<float>(), to_float(ex), 1e-5f, 1e-5f))
        << "dx";
    EXPECT_TRUE(kiln::testing::all_close(dw.to_vector<float>(), to_float(ew), 1e-5f, 1e-5f))
        << "dw";
    EXPECT_TRUE(kiln::testing::all_close(db.to_vector<float>(), to_float(eb), 1e-5f, 1e-5f))
        << "db";
  }
}

TEST(Conv2d, BackwardMatchesFiniteDifferences) {
  kiln::Generator gen(5);
  Conv2d layer(3, 4, 3, gen, {.stride = 2, .padding = 1});
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
      layer, kiln::testing::random_tensor({2, 3, 7, 7}, 2)));
  Conv2d no_bias(2, 3, 2, gen, {}, false);
  EXPECT_EQ(no_bias.parameters().size(), 1u);
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
      no_bias, kiln::testing::random_tensor({1, 2, 5, 4}, 4)));
}

TEST(Conv2d, InitialisesLikePyTorchWithinOneOverSqrtFanIn) {
  kiln::Generator gen(11);
  Conv2d layer(3, 33, 5, gen);
  const float bound = 1.0f / std::sqrt(3.0f * 25.0f);
  float largest = 0.0f;
  for (float v : layer.weight().value.to_vector<float>()) largest = std::max(largest, std::abs(v));
  EXPECT_LE(largest, bound);
  EXPECT_GT(largest, 0.9f * bound);  // 2,475 draws reach close to the bound
  for (float v : layer.bias()->value.to_vector<float>()) EXPECT_LE(std::abs(v), bound);
  EXPECT_EQ(layer.describe(), "Conv2d(3 -> 33, kernel 5, stride 1, padding 0)");
}

// The weight gradient at 1, 2 and 3 threads on the CPU path `compute` (restored after).
std::vector<std::vector<float>> weight_gradients_by_threads(kiln::CpuCompute compute, int repeats) {
  const int threads = kiln::num_threads();
  const kiln::CpuCompute old = kiln::cpu_compute();
  kiln::set_cpu_compute(compute);
  const Tensor x = kiln::testing::random_tensor({33, 2, 6, 5}, 21);
  const Tensor dy = kiln::testing::random_tensor({33, 3, 4, 3}, 22);
  std::vector<std::vector<float>> results;
  for (int t : {1, 2, 3})
    for (int r = 0; r < repeats; ++r) {
      kiln::set_num_threads(t);
      Tensor dw = Tensor::zeros({3, 2, 3, 3}), db = Tensor::zeros({3});
      kiln::conv2d_backward_filter(x, dy, dw, db, {});
      results.push_back(dw.to_vector<float>());
    }
  kiln::set_num_threads(threads);
  kiln::set_cpu_compute(old);
  return results;
}

// The reference sums fixed chunks of the batch in a fixed order: the same bits at any count.
TEST(Conv2d, ReferenceWeightGradientDoesNotDependOnTheThreadCount) {
  const auto results = weight_gradients_by_threads(kiln::CpuCompute::reference, 1);
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
}

// oneDNN splits the batch by thread count, so its last bits may differ between counts (as
// PyTorch's do); at one count, what resuming relies on, it repeats itself bit for bit.
TEST(Conv2d, OnednnWeightGradientRepeatsItselfAtAGivenThreadCount) {
  if (!kiln::onednn_built()) GTEST_SKIP() << "kiln was built without oneDNN (KILN_ONEDNN)";
  const auto results = weight_gradients_by_threads(kiln::CpuCompute::onednn, 2);
  for (std::size_t i = 0; i < results.size(); i += 2)
    EXPECT_EQ(results[i], results[i + 1]) << "count " << i / 2 + 1;
  EXPECT_TRUE(kiln::testing::all_close(results[0], results[2], 1e-5f, 1e-5f));
}

TEST(Conv2d, RejectsAWrongChannelCountNamingBoth) {
  kiln::Generator gen(1);
  Conv2d layer(3, 6, 5, gen);
  try {
    layer.forward(Tensor::zeros({2, 4, 9, 9}));
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("expected 3 input channels, found 4"), std::string::npos) << m;
    EXPECT_NE(m.find("(2, 4, 9, 9)"), std::string::npos) << m;
  }
  EXPECT_THROW(layer.forward(Tensor::zeros({2, 3, 9})), kiln::Error);
}

TEST(Conv2d, RejectsAnInputSmallerThanTheKernel) {
  kiln::Generator gen(1);
  Conv2d layer(1, 2, 5, gen, {.padding = 1});
  EXPECT_EQ(layer.output_shape({1, 1, 3, 3}), (Shape{1, 2, 1, 1}));  // 3 + 2 padding = 5
  try {
    layer.forward(Tensor::zeros({1, 1, 2, 7}));
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("2x7"), std::string::npos) << m;
    EXPECT_NE(m.find("smaller than the 5x5 kernel"), std::string::npos) << m;
  }
}

TEST(Conv2d, BackwardAfterAnEvalForwardIsAnError) {
  kiln::Generator gen(1);
  Conv2d layer(1, 2, 3, gen);
  layer.eval();
  const Tensor y = layer.forward(kiln::testing::random_tensor({1, 1, 4, 4}, 3));
  layer.train();
  EXPECT_THROW(layer.backward(y), kiln::Error);
}
