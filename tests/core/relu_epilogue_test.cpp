// The ReLU epilogue switch (core/relu_epilogue.h): names, errors, and that set_relu_epilogue
// wins over the environment. Which one keeps NaN on a GPU is LinearParity's question.
#include <gtest/gtest.h>

#include "kiln/core/relu_epilogue.h"
#include "tests/support/error_testing.h"

namespace kiln {
namespace {

TEST(ReluEpilogue, ParsesBothNamesAndRejectsOthers) {
  for (ReluEpilogue e : {ReluEpilogue::fused, ReluEpilogue::separate})
    EXPECT_EQ(parse_relu_epilogue(relu_epilogue_name(e)), e);
  // Separate is the default: it keeps NaN by construction; fused is opt-in.
  EXPECT_EQ(parse_relu_epilogue(nullptr), ReluEpilogue::separate);
  EXPECT_EQ(parse_relu_epilogue(""), ReluEpilogue::separate);
  const std::string message = testing::error_message([] { parse_relu_epilogue("unfused"); });
  EXPECT_NE(message.find("'unfused'"), std::string::npos) << message;
  EXPECT_NE(message.find("fused or separate"), std::string::npos) << message;
}

TEST(ReluEpilogue, SetWinsOverTheEnvironmentAndSticks) {
  const ReluEpilogue before = relu_epilogue();
  set_relu_epilogue(ReluEpilogue::separate);
  EXPECT_EQ(relu_epilogue(), ReluEpilogue::separate);
  set_relu_epilogue(ReluEpilogue::fused);
  EXPECT_EQ(relu_epilogue(), ReluEpilogue::fused);
  set_relu_epilogue(before);
}

}  // namespace
}  // namespace kiln
