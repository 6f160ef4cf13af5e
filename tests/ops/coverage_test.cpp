// The harness admits no op without a case: every op in the op table has a parity case, every
// backward op a finite-difference case, and every case names a registered op and a known group.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "kiln/core/op_table.h"
#include "tests/ops/cases/harness.h"

namespace kiln::ops_testing {
namespace {

bool is_backward(const std::string& op) {
  return op.find("backward") != std::string::npos || op == "bias_grad";
}

TEST(OpHarness, EveryRegisteredOpHasACase) {
  std::set<std::string> covered;
  for (const OpCase& c : op_cases()) covered.insert(c.op);
  const std::vector<std::string> ops = registered_ops();
  ASSERT_FALSE(ops.empty()) << "no op registered a kernel: were the registrars linked?";
  for (const std::string& op : ops)
    EXPECT_TRUE(covered.count(op)) << op << " has no case: add one to tests/ops/cases/";
}

TEST(OpHarness, EveryBackwardOpHasAGradientCase) {
  std::set<std::string> covered;
  for (const GradientCase& c : gradient_cases()) covered.insert(c.op);
  for (const std::string& op : registered_ops())
    if (is_backward(op)) EXPECT_TRUE(covered.count(op)) << op << " has no finite-difference case";
}

TEST(OpHarness, EveryCaseNamesARegisteredOpAndAGroup) {
  const std::vector<std::string> ops = registered_ops();
  for (const OpCase& c : op_cases()) {
    EXPECT_NE(std::find(ops.begin(), ops.end(), c.op), ops.end()) << c.op << " [" << c.name << "]";
    EXPECT_NE(std::find(groups().begin(), groups().end(), c.group), groups().end())
        << c.group << " is not in groups()";
  }
  for (const GradientCase& c : gradient_cases())
    EXPECT_NE(std::find(ops.begin(), ops.end(), c.op), ops.end()) << c.op << " [" << c.name << "]";
}

TEST(OpHarness, EveryOpHasAReferenceKernel) {
  for (const std::string& op : registered_ops())
    EXPECT_TRUE(has_kernel(op, Side::reference))
        << op << ": the reference is what others are tested against";
}

}  // namespace
}  // namespace kiln::ops_testing
