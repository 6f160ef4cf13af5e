// The checks shared by the data sets: data that must fit in memory, and class counts inferred
// from labels.
#include "kiln/data/dataset.h"

#include <gtest/gtest.h>

#include "kiln/core/host_memory.h"
#include "tests/data/file_testing.h"

using kiln::testing::error_message;

TEST(Dataset, DataPastHalfTheHostsMemoryIsRefusedNamingItsSource) {
  if (kiln::host_memory_bytes() == 0) GTEST_SKIP() << "this system does not report its memory";
  EXPECT_CONTAINS(
      error_message([] { kiln::check_fits_in_memory(std::uint64_t{1} << 62, "x.idx"); }),
      "x.idx needs 4294967296.0 GiB in memory, more than half of this machine's");
  EXPECT_EQ(error_message([] { kiln::check_fits_in_memory(kiln::host_memory_bytes() / 4, "y"); }),
            "");
}

TEST(Dataset, ClassesInferredFromLabelsStopAtAMillion) {
  EXPECT_EQ(kiln::classes_from_max_label(9, "f.csv"), 10);
  EXPECT_CONTAINS(error_message([] { kiln::classes_from_max_label(2147483647, "f.csv"); }),
                  "f.csv: the largest label is 2147483647, which would make 2147483648 classes");
}
