// Dropout on the CPU: the mask is Philox at (seed, offset + i) (same seed, same mask; each
// forward a fresh one), survivors are scaled by 1 / (1 - p), eval is the identity, backward
// multiplies by the forward's mask, and p outside [0, 1] is refused.
#include <gtest/gtest.h>

#include "kiln/core/ops.h"
#include "kiln/core/philox.h"
#include "kiln/layers/dropout.h"
#include "tests/support/gradient_check.h"
#include "tests/support/tensor_testing.h"

using kiln::Dropout;
using kiln::Tensor;

TEST(Dropout, KeepsExactlyThePhiloxDrawsAtOrAbovePAndScalesThem) {
  constexpr float p = 0.3f;
  Dropout dropout(p, 42);
  const Tensor x = kiln::testing::random_tensor({1000}, 1, 0.5f, 1.5f);  // never zero
  const auto xv = x.to_vector<float>(), y = dropout.forward(x).to_vector<float>();
  int dropped = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const bool keep = kiln::philox::to_unit(kiln::philox::draw(42, i).x) >= p;
    EXPECT_EQ(y[i], keep ? xv[i] * (1.0f / (1.0f - p)) : 0.0f) << "element " << i;
    dropped += keep ? 0 : 1;
  }
  EXPECT_NEAR(dropped / 1000.0, p, 0.05);
}

TEST(Dropout, SameSeedGivesTheSameMasksAndEachForwardANewOne) {
  const Tensor x = kiln::testing::random_tensor({7, 33}, 2, 0.5f, 1.5f);
  Dropout a(0.5f, 7), b(0.5f, 7), other(0.5f, 8);
  const auto a1 = a.forward(x).to_vector<float>(), a2 = a.forward(x).to_vector<float>();
  EXPECT_EQ(b.forward(x).to_vector<float>(), a1);
  EXPECT_EQ(b.forward(x).to_vector<float>(), a2);
  EXPECT_NE(a1, a2);  // the counter moved on by 231
  EXPECT_NE(other.forward(x).to_vector<float>(), a1);
  EXPECT_EQ(a.generator().offset(), 2u * 231u);
  a.generator().set_state(7, 0);  // a restored state replays the masks
  EXPECT_EQ(a.forward(x).to_vector<float>(), a1);
}

TEST(Dropout, EvalIsTheIdentityAndExtremesBehave) {
  const Tensor x = kiln::testing::random_tensor({3, 5}, 3);
  Dropout dropout(0.9f, 1);
  dropout.eval();
  EXPECT_TRUE(dropout.forward(x).shares_storage_with(x));
  EXPECT_EQ(dropout.generator().offset(), 0u);  // eval draws nothing
  Dropout none(0.0f), all(1.0f);
  EXPECT_EQ(none.forward(x).to_vector<float>(), x.to_vector<float>());
  for (float v : all.forward(x).to_vector<float>()) EXPECT_EQ(v, 0.0f);
  EXPECT_EQ(dropout.describe(), "Dropout(p=0.9)");
}

TEST(Dropout, AtZeroPassesTensorsThroughInTrainingAndAdvancesItsGenerator) {
  const Tensor x = kiln::testing::random_tensor({3, 5}, 8);
  const Tensor dy = kiln::testing::random_tensor({3, 5}, 9);
  Dropout none(0.0f, 2);
  EXPECT_TRUE(none.forward(x).shares_storage_with(x));
  // The counter moves as a drawn mask would move it, so a checkpoint's state is the same.
  EXPECT_EQ(none.generator().offset(), 15u);
  EXPECT_TRUE(none.backward(dy).shares_storage_with(dy));
}

TEST(Dropout, BackwardMultipliesByTheForwardMask) {
  Dropout dropout(0.4f, 5);
  Tensor x = kiln::testing::random_tensor({4, 9}, 4);
  const Tensor r = kiln::testing::random_tensor({4, 9}, 5);
  dropout.forward(x);
  const Tensor dx = dropout.backward(r).clone();
  // The same mask at every evaluation: replay the generator from where the forward started.
  auto loss = [&] {
    dropout.generator().set_state(5, 0);
    const auto y = dropout.forward(x).to_vector<float>(), rv = r.to_vector<float>();
    double s = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i) s += double(y[i]) * rv[i];
    return s;
  };
  EXPECT_TRUE(kiln::testing::gradient_matches_finite_differences(loss, x, dx, "x"));
}

TEST(Dropout, RejectsAProbabilityOutsideZeroToOne) {
  EXPECT_THROW(Dropout(-0.1f), kiln::Error);
  EXPECT_THROW(Dropout(1.5f), kiln::Error);
  Dropout dropout(0.5f);
  dropout.eval();
  dropout.forward(Tensor::zeros({2, 2}));
  dropout.train();
  EXPECT_THROW(dropout.backward(Tensor::zeros({2, 2})), kiln::Error);
}
