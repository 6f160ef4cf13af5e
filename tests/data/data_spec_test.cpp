// open_data: --samples N takes N samples spread over the set, so a file sorted by class still
// trains on every class.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "kiln/data/data_spec.h"
#include "kiln/data/image_io.h"
#include "tests/data/file_testing.h"

TEST(DataSpec, SamplesAreSpreadOverAFileSortedByClass) {
  std::string rows;
  for (int label = 0; label < 10; ++label)
    for (int i = 0; i < 20; ++i) rows += std::to_string(label) + "," + std::to_string(i) + ".5,1\n";
  const std::string path = kiln::testing::write_text(kiln::testing::fresh_folder("spec_sorted") / "sorted.csv", rows);

  const kiln::DataSplits data = kiln::open_data("csv:" + path, {20, 1});
  ASSERT_EQ(data.train->size(), 20);
  std::set<std::int32_t> labels;
  float x[2];
  for (std::int64_t i = 0; i < data.train->size(); ++i) {
    std::int32_t y = -1;
    data.train->get(i, x, &y);
    labels.insert(y);
  }
  EXPECT_EQ(labels.size(), 10u) << "the first 20 rows alone would be class 0";
}

TEST(DataSpec, MoreSamplesThanTheSetHasIsAnError) {
  std::string rows;
  for (int i = 0; i < 20; ++i) rows += std::to_string(i % 2) + "," + std::to_string(i) + "\n";
  const std::string path = kiln::testing::write_text(kiln::testing::fresh_folder("spec_small") / "small.csv", rows);
  const std::string message = kiln::testing::error_message([&] { kiln::open_data("csv:" + path, {50, 1}); });
  EXPECT_CONTAINS(message, "--samples 50 is more than the 18 samples");
}

TEST(DataSpec, TrainAndTestImageFoldersMustHaveTheSameClassesAndSize) {
  const auto dir = kiln::testing::fresh_folder("spec_images");
  const kiln::Image8 small{2, 2, 1, std::vector<std::uint8_t>(4, 7)};
  for (const char* path : {"train/a/1.png", "train/b/1.png", "test/b/1.png"}) {
    std::filesystem::create_directories((dir / path).parent_path());
    kiln::write_png((dir / path).string(), small);
  }
  // Without test/a, test's class "b" would get label 0, train's "a".
  EXPECT_CONTAINS(kiln::testing::error_message([&] { kiln::open_data("images:" + dir.string()); }),
                  "/train has the classes a, b but " + dir.string() + "/test has b");
  const kiln::Image8 larger{3, 3, 1, std::vector<std::uint8_t>(9, 7)};
  std::filesystem::create_directories(dir / "test/a");
  kiln::write_png((dir / "test/a/1.png").string(), larger);
  kiln::write_png((dir / "test/b/1.png").string(), larger);
  EXPECT_CONTAINS(kiln::testing::error_message([&] { kiln::open_data("images:" + dir.string()); }),
                  "/train holds images of (1, 2, 2) but " + dir.string() + "/test of (1, 3, 3)");
}
