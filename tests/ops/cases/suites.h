// One gtest suite per group of ops for a pair of backends, one test per op of the group:
// KILN_PARITY_SUITES(Prefix, side, skip) defines Prefix_<group>.MatchesTheReference/<op> for every
// group of groups() and each op of the group with a kernel on `side`, whose cases it runs.
#pragma once

#include "tests/ops/cases/harness.h"

#define KILN_PARITY_SUITE(Prefix, Group, side, skip)                                            \
  class Prefix##_##Group : public ::testing::TestWithParam<std::string> {};                     \
  TEST_P(Prefix##_##Group, MatchesTheReference) {                                               \
    skip;                                                                                       \
    if (GetParam() == "none")                                                                   \
      GTEST_SKIP() << "no op of group " #Group " has a kernel on this backend in this build";   \
    EXPECT_GT(::kiln::ops_testing::expect_op_parity(GetParam(), side), 0)                       \
        << "every case of " << GetParam() << " was left out";                                   \
  }                                                                                             \
  INSTANTIATE_TEST_SUITE_P(                                                                     \
      , Prefix##_##Group, ::testing::ValuesIn(::kiln::ops_testing::ops_of_group(#Group, side)), \
      [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// The list must follow groups(): each binary checks that every group has a suite. The ops are
// read when gtest starts, after every case has registered. `skip` is a statement run first (a
// GTEST_SKIP where the other backend is absent).
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
  KILN_PARITY_SUITE(Prefix, Normalization, side, skip) \
  KILN_PARITY_SUITE(Prefix, Dropout, side, skip)       \
  KILN_PARITY_SUITE(Prefix, Random, side, skip)        \
  KILN_PARITY_SUITE(Prefix, Optimizer, side, skip)     \
  KILN_PARITY_SUITE(Prefix, Pool2d, side, skip)        \
  KILN_PARITY_SUITE(Prefix, Sequence, side, skip)

namespace kiln::ops_testing {
// Fails for each group of groups() without a suite named prefix + "_" + group in this binary.
void expect_a_suite_per_group(const std::string& prefix);
}  // namespace kiln::ops_testing
