// LayerNorm on the CPU: each row normalised by its own mean and biased variance (checked against
// a hand computation), the same in eval, gradients for (N, C) and (N, L, C) against finite
// differences, and the error messages.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/core/ops.h"
#include "kiln/layers/layer_norm.h"
#include "tests/support/gradient_check.h"
#include "tests/support/tensor_testing.h"

using kiln::LayerNorm;
using kiln::Shape;
using kiln::Tensor;

TEST(LayerNorm, NormalisesEachRowAsPyTorch) {
  constexpr std::int64_t n = 5, c = 7;
  LayerNorm ln(c);
  kiln::copy(kiln::testing::random_tensor({c}, 2, 0.5f, 1.5f), ln.weight().value);
  kiln::copy(kiln::testing::random_tensor({c}, 3), ln.bias().value);
  const Tensor x = kiln::testing::random_tensor({n, c}, 1, -2.0f, 5.0f);
  const auto xv = x.to_vector<float>(), w = ln.weight().value.to_vector<float>(),
             b = ln.bias().value.to_vector<float>();
  const auto y = ln.forward(x).to_vector<float>();
  for (std::int64_t r = 0; r < n; ++r) {
    double mean = 0.0, squares = 0.0;
    for (std::int64_t i = 0; i < c; ++i) mean += xv[r * c + i];
    mean /= c;
    for (std::int64_t i = 0; i < c; ++i) squares += std::pow(xv[r * c + i] - mean, 2);
    const double invstd = 1.0 / std::sqrt(squares / c + 1e-5);
    for (std::int64_t i = 0; i < c; ++i)
      EXPECT_NEAR(y[r * c + i], (xv[r * c + i] - mean) * invstd * w[i] + b[i], 1e-5);
  }
  ln.eval();
  EXPECT_EQ(ln.forward(x).to_vector<float>(), y) << "eval normalises the same way";
}

TEST(LayerNorm, BackwardMatchesFiniteDifferences) {
  for (const Shape& shape : {Shape{6, 5}, Shape{2, 3, 4}}) {
    const std::int64_t c = shape[shape.rank() - 1];
    LayerNorm ln(c);
    kiln::copy(kiln::testing::random_tensor({c}, 3, 0.5f, 1.5f), ln.weight().value);
    kiln::copy(kiln::testing::random_tensor({c}, 4), ln.bias().value);
    EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
        ln, kiln::testing::random_tensor(shape, 5, -2.0f, 2.0f)))
        << shape.str();
  }
}

TEST(LayerNorm, RefusesAnInputOfAnotherWidth) {
  LayerNorm ln(4);
  EXPECT_THROW(ln.forward(Tensor::zeros({3, 5})), kiln::Error);
  EXPECT_THROW(LayerNorm(0), kiln::Error);
}
