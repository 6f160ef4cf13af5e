// kiln::linear_forward on the CPU against a double-precision loop: with and without bias and
// ReLU, at odd sizes and an empty inner dimension, NaN garbage in y ignored; and its errors.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "kiln/core/ops.h"
#include "tests/support/error_testing.h"
#include "tests/support/tensor_testing.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::error_message;
using testing::random_tensor;

// x (n, in) · w (out, in)ᵀ + bias, ReLU'd when relu, in double.
std::vector<float> naive_linear(const Tensor& x, const Tensor& w, const Tensor& bias, bool relu) {
  const auto xv = x.to_vector<float>(), wv = w.to_vector<float>();
  const std::vector<float> bv = bias.defined() ? bias.to_vector<float>() : std::vector<float>();
  const std::int64_t n = x.size(0), in = x.size(1), out = w.size(0);
  std::vector<float> y(static_cast<std::size_t>(n * out));
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t o = 0; o < out; ++o) {
      double sum = bias.defined() ? bv[o] : 0.0;
      for (std::int64_t i = 0; i < in; ++i)
        sum += static_cast<double>(xv[r * in + i]) * wv[o * in + i];
      y[r * out + o] = static_cast<float>(relu && sum < 0.0 ? 0.0 : sum);
    }
  return y;
}

TEST(LinearForward, MatchesNaiveLoopWithAndWithoutBiasAndRelu) {
  struct Dims {
    std::int64_t n, in, out;
  };
  const Dims dims[] = {{1, 1, 1}, {7, 33, 5}, {64, 300, 129}, {3, 0, 4}};
  std::uint32_t seed = 1;
  for (const Dims& d : dims)
    for (bool with_bias : {false, true})
      for (bool relu : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "n " << d.n << " in " << d.in << " out " << d.out
                                          << " bias " << with_bias << " relu " << relu);
        const Tensor x = random_tensor(Shape{d.n, d.in}, seed++);
        const Tensor w = random_tensor(Shape{d.out, d.in}, seed++);
        const Tensor bias = with_bias ? random_tensor(Shape{d.out}, seed++) : Tensor();
        Tensor y = Tensor::full(Shape{d.n, d.out}, std::numeric_limits<float>::quiet_NaN());
        linear_forward(x, w, bias, y, relu);
        const std::vector<float> got = y.to_vector<float>();
        EXPECT_TRUE(all_close(got, naive_linear(x, w, bias, relu), 1e-4f, 1e-5f));
        if (relu) {
          for (float v : got) ASSERT_GE(v, 0.0f);
        }
      }
}

TEST(LinearForward, RejectsMismatchedWeightAndBias) {
  const Tensor x = random_tensor(Shape{4, 6}, 1);
  Tensor y = Tensor::zeros(Shape{4, 3});
  std::string message = error_message([&] {
    linear_forward(x, random_tensor(Shape{3, 5}, 2), Tensor(), y);
  });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "x (4, 6) and weight (3, 5)", message);
  message = error_message([&] {
    linear_forward(x, random_tensor(Shape{3, 6}, 2), random_tensor(Shape{4}, 3), y);
  });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "bias must have shape (3,), found (4,)", message);
  Tensor wrong_y = Tensor::zeros(Shape{4, 2});
  message = error_message([&] {
    linear_forward(x, random_tensor(Shape{3, 6}, 2), Tensor(), wrong_y);
  });
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "y must have shape (4, 3), found (4, 2)", message);
}

}  // namespace
}  // namespace kiln
