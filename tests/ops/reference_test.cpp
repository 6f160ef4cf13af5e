// Every case runs on the CPU reference, whatever backends the build has, and a second run gives
// the same bits: the reference the pairs compare against is deterministic.
#include <gtest/gtest.h>

#include <cstring>

#include "kiln/core/cpu_compute.h"
#include "tests/ops/cases/harness.h"

namespace kiln::ops_testing {
namespace {

TEST(OpCases, EveryCaseRunsOnTheReferenceAndRepeatsItsBits) {
  const CpuCompute before = cpu_compute();
  set_cpu_compute(CpuCompute::reference);
  int ran = 0;
  for (const OpCase& c : op_cases()) {
    if (c.large && sanitized_build()) continue;
    SCOPED_TRACE(::testing::Message() << c.op << " [" << c.name << "]");
    const Outputs first = c.run(Device::cpu()), second = c.run(Device::cpu());
    ASSERT_EQ(first.size(), second.size());
    for (std::size_t i = 0; i < first.size(); ++i) {
      const Tensor& a = first[i].second;
      const Tensor& b = second[i].second;
      ASSERT_EQ(a.nbytes(), b.nbytes()) << first[i].first;
      EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()), 0) << first[i].first;
    }
    ++ran;
  }
  set_cpu_compute(before);
  EXPECT_GT(ran, 0);
}

}  // namespace
}  // namespace kiln::ops_testing
