#include <gtest/gtest.h>

#include "kiln/models/model_spec.h"
#include "tests/support/error_testing.h"

namespace {
using kiln::testing::error_message;
}  // namespace

TEST(ModelSpec, BuildsTheArticleNetworkWithPyTorchNames) {
  kiln::Generator gen(1);
  const kiln::Model m = kiln::build_model("article", {1, 28, 28}, 10, gen);
  EXPECT_EQ(m.input_shape, (kiln::Shape{784}));
  EXPECT_EQ(m.net->size(), 9u);  // five Linear, four ReLU
  EXPECT_EQ(m.net->parameters().front()->name, "layers.0.weight");
  EXPECT_EQ(m.net->parameters().back()->name, "layers.8.bias");
  std::int64_t weights = 0;
  for (auto* p : m.net->parameters())
    if (p->value.rank() == 2) weights += p->value.numel();
  EXPECT_EQ(weights, 3958784);  // the article's count
}

TEST(ModelSpec, ParsesMlpSpecs) {
  kiln::Generator gen(2);
  const kiln::Model m = kiln::build_model("mlp:784-512-256-10", {784}, 10, gen);
  EXPECT_EQ(m.net->size(), 5u);
  EXPECT_EQ(kiln::mlp_widths("mlp:3-4-5"), (std::vector<std::int64_t>{3, 4, 5}));
}

TEST(ModelSpec, ExplainsMismatchesAndUnknownNames) {
  kiln::Generator gen(3);
  EXPECT_NE(error_message([&] { kiln::build_model("mlp:100-10", {784}, 10, gen); }).find("first width is 784"),
            std::string::npos);
  EXPECT_NE(error_message([&] { kiln::build_model("mlp:784-7", {784}, 10, gen); }).find("last width is 10"),
            std::string::npos);
  EXPECT_NE(error_message([&] { kiln::build_model("resnet", {784}, 10, gen); }).find("unknown model 'resnet'"),
            std::string::npos);
  EXPECT_NE(error_message([&] { kiln::build_model("mlp:784-x-10", {784}, 10, gen); }).find("'x'"), std::string::npos);
}
