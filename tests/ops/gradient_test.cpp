// Every backward op against central finite differences of its forward, on the CPU reference
// (tests/ops/cases/: each group's gradient cases).
#include <gtest/gtest.h>

#include "tests/ops/cases/harness.h"

namespace kiln::ops_testing {
namespace {

TEST(OpGradients, EveryBackwardMatchesFiniteDifferences) {
  ASSERT_FALSE(gradient_cases().empty());
  for (const GradientCase& c : gradient_cases()) {
    SCOPED_TRACE(::testing::Message() << c.op << " [" << c.name << "]");
    EXPECT_TRUE(c.check());
  }
}

}  // namespace
}  // namespace kiln::ops_testing
