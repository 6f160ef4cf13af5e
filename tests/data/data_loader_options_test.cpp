// DataLoaderOptions out of range are refused with a kiln::Error naming the field and its value,
// before any thread or slot is made (100,000 workers used to escape as std::system_error).
#include <gtest/gtest.h>

#include <memory>

#include "kiln/data/data_loader.h"
#include "tests/data/test_datasets.h"
#include "tests/support/error_testing.h"

namespace {

std::string loader_error(kiln::DataLoaderOptions options) {
  auto data = std::make_shared<kiln::testing::IndexDataset>(10);
  return kiln::testing::error_message([&] { kiln::DataLoader loader(data, options); });
}

TEST(DataLoaderOptions, EachFieldOutOfRangeIsNamedWithItsValue) {
  EXPECT_NE(loader_error({.batch_size = 0})
                .find("DataLoaderOptions::batch_size must be at least 1, found 0"),
            std::string::npos);
  EXPECT_NE(loader_error({.num_workers = 100000})
                .find("DataLoaderOptions::num_workers must be in [0, 256], found 100000"),
            std::string::npos);
  EXPECT_NE(loader_error({.num_workers = -1})
                .find("DataLoaderOptions::num_workers must be in [0, 256], found -1"),
            std::string::npos);
  EXPECT_NE(
      loader_error({.prefetch = 1 << 30}).find("DataLoaderOptions::prefetch must be in [1, 64]"),
      std::string::npos);
  EXPECT_NE(loader_error({.prefetch = 0}).find("DataLoaderOptions::prefetch must be in [1, 64]"),
            std::string::npos);
  EXPECT_NE(loader_error({.world_size = 0})
                .find("DataLoaderOptions::world_size must be at least 1, found 0"),
            std::string::npos);
  EXPECT_NE(loader_error({.rank = 3, .world_size = 2})
                .find("DataLoaderOptions::rank must be in [0, 2), found 3"),
            std::string::npos);
}

TEST(DataLoaderOptions, TheLimitsThemselvesAreAccepted) {
  EXPECT_NO_THROW(kiln::check_data_loader_options({.batch_size = 1,
                                                   .num_workers = kiln::kMaxLoaderWorkers,
                                                   .prefetch = kiln::kMaxLoaderPrefetch}));
  EXPECT_EQ(loader_error({.num_workers = 2, .prefetch = 1}), "");
}

}  // namespace
