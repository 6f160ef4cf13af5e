// A rank that is ending its job leaves by itself when the abort it asked for never comes.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "kiln/distributed/abort_deadline.h"

TEST(AbortDeadline, AProcessWhoseAbortNeverReturnsLeavesByItselfWithItsExitCode) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        kiln::leave_by_itself_after(0.2, 7, "rank 1 of 2 (MPI)", "MPI_Abort");
        for (;;) std::this_thread::sleep_for(std::chrono::hours(1));  // an abort that hangs
      },
      ::testing::ExitedWithCode(7),
      "kiln: rank 1 of 2 \\(MPI\\): MPI_Abort did not end this process within 0.2 s .*leaving by "
      "itself with exit status 7");
}

TEST(AbortDeadline, AProcessThatEndsFirstIsNotDisturbed) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        kiln::leave_by_itself_after(30, 7, "rank 0 of 2 (MPI)", "MPI_Abort");
        std::_Exit(3);  // the abort worked: the daemon ended this process
      },
      ::testing::ExitedWithCode(3), "^$");
}
