// The harness's reference-vs-CUDA pair, one suite per group of ops (OpParity_<group>), so that
// scripts/gpu-check.sh, which runs one suite per process, loses one group only to a sticky CUDA
// error. Every case of every op with a CUDA kernel, at fp32, TF32 and bf16 where the case lists
// them. Skipped, with the reason, where no CUDA device answers.
#include <gtest/gtest.h>

#include "tests/ops/cases/suites.h"
#include "tests/support/tensor_testing.h"

namespace kiln::ops_testing {
namespace {

KILN_PARITY_SUITES(OpParity, Side::cuda, KILN_REQUIRE_GPU())

TEST(OpParity, EveryGroupHasASuite) { expect_a_suite_per_group("OpParity"); }

}  // namespace
}  // namespace kiln::ops_testing
