// permute against a hand-indexed loop, its inverse round trip, and the errors for a bad perm.
#include <gtest/gtest.h>

#include "kiln/core/ops.h"
#include "tests/support/tensor_testing.h"

using kiln::Shape;
using kiln::Tensor;

TEST(Permute, MovesEachElementToItsPermutedIndex) {
  const Tensor x = kiln::testing::random_tensor({2, 3, 4}, 1);
  Tensor y = Tensor::empty({4, 2, 3});
  kiln::permute(x, {2, 0, 1}, y);
  const auto xv = x.to_vector<float>(), yv = y.to_vector<float>();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(yv[(k * 2 + i) * 3 + j], xv[(i * 3 + j) * 4 + k]);
  Tensor back = Tensor::empty({2, 3, 4});
  kiln::permute(y, kiln::inverse_permutation({2, 0, 1}), back);
  EXPECT_EQ(back.to_vector<float>(), xv);
}

TEST(Permute, RefusesAPermThatIsNotOne) {
  const Tensor x = Tensor::zeros({2, 3});
  Tensor y = Tensor::empty({3, 2});
  EXPECT_THROW(kiln::permute(x, {0, 0}, y), kiln::Error);
  EXPECT_THROW(kiln::permute(x, {1}, y), kiln::Error);
  Tensor wrong = Tensor::empty({2, 3});
  EXPECT_THROW(kiln::permute(x, {1, 0}, wrong), kiln::Error);
}
