// Embedding on the CPU: rows looked up as a hand loop does, float32 and int32 ids alike, the
// weight's gradient scatter-added (repeated ids sum) and checked against finite differences, and
// the errors for ids that are not integers in [0, num).
#include <gtest/gtest.h>

#include "kiln/core/ops.h"
#include "kiln/layers/embedding.h"
#include "tests/support/gradient_check.h"
#include "tests/support/tensor_testing.h"

using kiln::Embedding;
using kiln::Shape;
using kiln::Tensor;

TEST(Embedding, LooksUpTheRowOfEachId) {
  kiln::Generator gen(1);
  Embedding emb(5, 3, gen);
  const Tensor x = Tensor::from_vector(std::vector<float>{4, 0, 2, 2, 1, 3}, {2, 3});
  const auto w = emb.weight().value.to_vector<float>();
  const auto y = emb.forward(x).to_vector<float>();
  ASSERT_EQ(emb.forward(x).shape(), (Shape{2, 3, 3}));
  const int idx[] = {4, 0, 2, 2, 1, 3};
  for (int i = 0; i < 6; ++i)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(y[i * 3 + c], w[idx[i] * 3 + c]) << i << "," << c;
  Tensor y32 = Tensor::empty({2, 3, 3});
  kiln::embedding_forward(Tensor::from_vector(std::vector<std::int32_t>{4, 0, 2, 2, 1, 3}, {2, 3}),
                          emb.weight().value, y32);
  EXPECT_EQ(y32.to_vector<float>(), y) << "int32 ids pick the same rows";
}

TEST(Embedding, BackwardSumsTheGradientsOfRepeatedIds) {
  kiln::Generator gen(2);
  Embedding emb(3, 2, gen);
  emb.zero_grad();
  emb.forward(Tensor::from_vector(std::vector<float>{1, 1, 0}, {1, 3}));
  const Tensor dx =
      emb.backward(Tensor::from_vector(std::vector<float>{1, 2, 10, 20, 100, 200}, {1, 3, 2}));
  EXPECT_EQ(emb.weight().grad.to_vector<float>(), (std::vector<float>{100, 200, 11, 22, 0, 0}));
  EXPECT_EQ(dx.to_vector<float>(), (std::vector<float>{0, 0, 0})) << "ids have no gradient";
}

TEST(Embedding, BackwardMatchesFiniteDifferences) {
  kiln::Generator gen(3);
  Embedding emb(7, 5, gen);
  kiln::GradientCheckOptions options;
  options.check_input = false;
  EXPECT_TRUE(kiln::testing::gradients_match_finite_differences(
      emb, Tensor::from_vector(std::vector<float>{6, 0, 3, 3, 1, 5, 2, 6}, {2, 4}), options));
}

TEST(Embedding, NamesAnIdThatIsNotAnIntegerInRange) {
  kiln::Generator gen(4);
  Embedding emb(4, 2, gen);
  const auto message = [&](std::vector<float> ids) {
    try {
      emb.forward(Tensor::from_vector(ids, {2, 2}));
    } catch (const kiln::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string fractional = message({0, 1, 2.5f, 3});
  EXPECT_NE(fractional.find("2.5"), std::string::npos) << fractional;
  EXPECT_NE(fractional.find("(1, 0)"), std::string::npos) << fractional;
  const std::string too_large = message({0, 4, 2, 3});
  EXPECT_NE(too_large.find("[0, 4)"), std::string::npos) << too_large;
  EXPECT_NE(too_large.find("(0, 1)"), std::string::npos) << too_large;
  EXPECT_NE(message({-1, 0, 0, 0}).find("found -1"), std::string::npos);
  Tensor y = Tensor::empty({1, 2});
  EXPECT_THROW(kiln::embedding_forward(Tensor::from_vector(std::vector<std::int32_t>{7}, {1}),
                                       emb.weight().value, y),
               kiln::Error);
  EXPECT_THROW(Embedding(0, 3, gen), kiln::Error);
}
