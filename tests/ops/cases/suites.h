// One gtest suite per group of ops for a pair of backends: KILN_PARITY_SUITES(Prefix, side, skip)
// defines Prefix_<group>.MatchesTheReference for every group of groups() (the list below must
// follow it: tests/ops/coverage_test.cpp and the GPU suite check that every group has a suite).
// `skip` is a statement run first (a GTEST_SKIP where the other backend is absent).
#pragma once

#include "tests/ops/cases/harness.h"

#define KILN_PARITY_SUITE(Prefix, Group, side, skip)                                          \
  TEST(Prefix##_##Group, MatchesTheReference) {                                               \
    skip;                                                                                     \
    if (::kiln::ops_testing::expect_group_parity(#Group, side) == 0)                          \
      GTEST_SKIP() << "no op of group " #Group " has a kernel on this backend in this build"; \
  }

#define KILN_PARITY_SUITES(Prefix, side, skip)         \
  KILN_PARITY_SUITE(Prefix, Elementwise, side, skip)   \
  KILN_PARITY_SUITE(Prefix, Activation, side, skip)    \
  KILN_PARITY_SUITE(Prefix, Bias, side, skip)          \
  KILN_PARITY_SUITE(Prefix, Reduce, side, skip)        \
  KILN_PARITY_SUITE(Prefix, Softmax, side, skip)       \
  KILN_PARITY_SUITE(Prefix, Metrics, side, skip)       \
  KILN_PARITY_SUITE(Prefix, Gemm, side, skip)          \
  KILN_PARITY_SUITE(Prefix, Linear, side, skip)        \
  KILN_PARITY_SUITE(Prefix, Conv2d, side, skip)        \
  KILN_PARITY_SUITE(Prefix, Pool2d, side, skip)        \
  KILN_PARITY_SUITE(Prefix, Normalization, side, skip) \
  KILN_PARITY_SUITE(Prefix, Dropout, side, skip)       \
  KILN_PARITY_SUITE(Prefix, Random, side, skip)        \
  KILN_PARITY_SUITE(Prefix, Optimizer, side, skip)

namespace kiln::ops_testing {
// Fails for each group of groups() without a suite named prefix + "_" + group in this binary.
void expect_a_suite_per_group(const std::string& prefix);
}  // namespace kiln::ops_testing
