// The harness's reference-vs-oneDNN pair, one suite per group of ops (OnednnParity_<group>): every
// case of an op with a oneDNN kernel, at fp32 and bf16. Skipped, with the reason, in a build
// without oneDNN, and per group where no op of it has a oneDNN kernel.
#include <gtest/gtest.h>

#include "kiln/core/cpu_compute.h"
#include "tests/ops/cases/suites.h"

namespace kiln::ops_testing {
namespace {

KILN_PARITY_SUITES(OnednnParity, Side::onednn,
                   if (!onednn_built()) GTEST_SKIP()
                       << "kiln was built without oneDNN (KILN_ONEDNN)")

TEST(OnednnParity, EveryGroupHasASuite) { expect_a_suite_per_group("OnednnParity"); }

}  // namespace
}  // namespace kiln::ops_testing
