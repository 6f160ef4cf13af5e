// train's injected faults (apps/train/fault_injection.h): only the documented form is read, and
// the fault comes at its rank and step alone (a throw, or a SIGKILL).
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>

#include "apps/train/fault_injection.h"
#include "kiln/core/error.h"

TEST(FaultInjection, ThrowsAtTheNamedRankAndStepOnlyAndRejectsOtherForms) {
  ::setenv("KILN_INJECT_FAULT", "fail:1:3", 1);
  const kiln::FaultInjection fault;
  EXPECT_NO_THROW(fault.at_step(0, 3));
  EXPECT_NO_THROW(fault.at_step(1, 2));
  EXPECT_THROW(fault.at_step(1, 3), kiln::Error);
  for (const char* bad : {"fail", "crash:1:3", "fail:-1:3", "hang:1"}) {
    ::setenv("KILN_INJECT_FAULT", bad, 1);
    EXPECT_THROW(kiln::FaultInjection(), kiln::Error) << bad;
  }
  ::unsetenv("KILN_INJECT_FAULT");
  EXPECT_NO_THROW(kiln::FaultInjection().at_step(1, 3));
}

TEST(FaultInjection, AKillAtItsRankAndStepEndsTheProcessBySigkill) {
  ::setenv("KILN_INJECT_FAULT", "kill:1:3", 1);
  const kiln::FaultInjection fault;
  ::unsetenv("KILN_INJECT_FAULT");
  EXPECT_NO_THROW(fault.at_step(0, 3));
  EXPECT_NO_THROW(fault.at_step(1, 4));
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(fault.at_step(1, 3), ::testing::KilledBySignal(SIGKILL), "");
}
