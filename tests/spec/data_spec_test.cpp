// open_data: --samples N takes N samples spread over the set, so a file sorted by class still
// trains on every class.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "kiln/data/image_io.h"
#include "kiln/data/subset_dataset.h"
#include "kiln/spec/data_spec.h"
#include "tests/data/file_testing.h"
#include "tests/data/test_datasets.h"

TEST(DataSpec, SamplesAreSpreadOverAFileSortedByClass) {
  std::string rows;
  for (int label = 0; label < 10; ++label)
    for (int i = 0; i < 20; ++i) rows += std::to_string(label) + "," + std::to_string(i) + ".5,1\n";
  const std::string path =
      kiln::testing::write_text(kiln::testing::fresh_folder("spec_sorted") / "sorted.csv", rows);

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
  const std::string path =
      kiln::testing::write_text(kiln::testing::fresh_folder("spec_small") / "small.csv", rows);
  const std::string message = kiln::testing::error_message([&] {
    kiln::open_data("csv:" + path, {50, 1});
  });
  EXPECT_CONTAINS(message, "DataSpecOptions::samples 50 is more than the 18 samples");
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

TEST(DataSpec, ImageFolderHoldingOnlyOneSplitIsReadAsThatSplit) {
  const kiln::Image8 small{2, 2, 1, std::vector<std::uint8_t>(4, 7)};
  for (const char* split : {"train", "test"}) {
    const auto dir = kiln::testing::fresh_folder(std::string("spec_only_") + split);
    for (const char* name : {"a/1.png", "a/2.png", "b/1.png", "c/1.png"}) {
      const auto path = dir / split / name;
      std::filesystem::create_directories(path.parent_path());
      kiln::write_png(path.string(), small);
    }
    const kiln::DataSplits splits = kiln::open_data("images:" + dir.string(), {0, 1, 0.0});
    // Classes a, b and c, not one class named after the split.
    EXPECT_EQ(splits.train->num_classes(), 3) << split;
    EXPECT_EQ(splits.train->size(), 4) << split;
  }
  // A split folder beside a class folder is a class like the others.
  const auto mixed = kiln::testing::fresh_folder("spec_split_and_class");
  for (const char* name : {"train/1.png", "other/1.png"}) {
    std::filesystem::create_directories((mixed / name).parent_path());
    kiln::write_png((mixed / name).string(), small);
  }
  EXPECT_EQ(kiln::open_data("images:" + mixed.string(), {0, 1, 0.0}).train->num_classes(), 2);
}

namespace {
// Rows "i, i + 0.5, 2i": a first column that is a class label only when asked (i % 3).
std::string numbered_rows(int n) {
  std::string rows = "cls,x,price\n";
  for (int i = 0; i < n; ++i)
    rows +=
        std::to_string(i % 3) + "," + std::to_string(i) + ".5," + std::to_string(2 * i) + ".25\n";
  return rows;
}
}  // namespace

TEST(DataSpec, CsvOptionsNameTheTargetColumnAndItsKind) {
  const auto dir = kiln::testing::fresh_folder("spec_csv_options");
  const std::string path = kiln::testing::write_text(dir / "t.csv", numbered_rows(20));
  const kiln::DataSplits by_name = kiln::open_data("csv:" + path + ":label=price:target=float");
  EXPECT_FALSE(by_name.train->has_class_labels());
  EXPECT_EQ(by_name.train->target_shape(), (kiln::Shape{1}));
  EXPECT_EQ(by_name.train->sample_shape(), (kiln::Shape{2}));
  float x[2], y = 0;
  by_name.train->get(1, x, &y);  // row 1: the train split keeps rows 0..8
  EXPECT_EQ(y, 2.25f);
  EXPECT_EQ(x[0], 1.0f);
  // By 0-based index, options in any order; the default kind is a class label.
  const kiln::DataSplits by_index = kiln::open_data("csv:" + path + ":target=float:label=2");
  by_index.train->get(1, x, &y);
  EXPECT_EQ(y, 2.25f);
  const kiln::DataSplits classes = kiln::open_data("csv:" + path + ":label=cls");
  EXPECT_TRUE(classes.train->has_class_labels());
  EXPECT_EQ(classes.train->num_classes(), 3);
  // Without options, the first column as before.
  EXPECT_EQ(kiln::open_data("csv:" + path).train->num_classes(), 3);

  EXPECT_CONTAINS(
      kiln::testing::error_message([&] { kiln::open_data("csv:" + path + ":label=cost"); }),
      "has no column named 'cost'; its columns are cls, x, price");
  EXPECT_CONTAINS(
      kiln::testing::error_message([&] { kiln::open_data("csv:" + path + ":target=real"); }),
      "expected target=class (integer labels) or target=float");
  EXPECT_CONTAINS(
      kiln::testing::error_message([&] { kiln::open_data("csv:" + path + ":lable=price"); }),
      "unknown option 'lable'");
  EXPECT_CONTAINS(
      kiln::testing::error_message([&] { kiln::open_data("csv:" + path + ":label=price"); }),
      "target=float");
}

TEST(DataSpec, ThePathMayHoldAColon) {
  const auto dir = kiln::testing::fresh_folder("spec_colon");
  const std::string path = kiln::testing::write_text(dir / "a:b.csv", numbered_rows(20));
  EXPECT_EQ(kiln::open_data("csv:" + path).train->size(), 18);
  EXPECT_EQ(kiln::open_data("csv:" + path + ":label=1:target=float").train->size(), 18);
}

TEST(DataSpec, ATestShareOfATenthHoldsOutEveryTenthSampleAsBefore) {
  auto base = std::make_shared<kiln::testing::IndexDataset>(0);
  for (std::int64_t n : {10, 11, 19, 20, 105, 999, 1000}) {
    auto data = std::make_shared<kiln::testing::IndexDataset>(n);
    const kiln::HeldOut every = kiln::hold_out_every(data, 10);
    const kiln::HeldOut share = kiln::hold_out_share(data, 0.1);
    ASSERT_EQ(share.test->size(), every.test->size()) << n;
    ASSERT_EQ(share.train->size(), every.train->size()) << n;
    float xa[4], xb[4];
    std::int32_t ya, yb;
    for (std::int64_t i = 0; i < every.test->size(); ++i) {
      every.test->get(i, xa, &ya);
      share.test->get(i, xb, &yb);
      ASSERT_EQ(xa[0], xb[0]) << n << " sample " << i;
    }
  }
}

TEST(DataSpec, TestShareSetsTheHeldOutShareAndZeroHoldsNothingOut) {
  const auto dir = kiln::testing::fresh_folder("spec_share");
  const std::string path = kiln::testing::write_text(dir / "t.csv", numbered_rows(40));
  kiln::DataSpecOptions o;
  o.test_share = 0.25;
  const kiln::DataSplits quarter = kiln::open_data("csv:" + path, o);
  EXPECT_EQ(quarter.test->size(), 10);
  EXPECT_EQ(quarter.train->size(), 30);
  o.test_share = 0.0;
  const kiln::DataSplits none = kiln::open_data("csv:" + path, o);
  EXPECT_EQ(none.test, nullptr);
  EXPECT_EQ(none.train->size(), 40);
  o.test_share = 1.0;
  EXPECT_CONTAINS(kiln::testing::error_message([&] { kiln::open_data("csv:" + path, o); }),
                  "DataSpecOptions::test_share must be in [0, 1) (0: no test split), found 1");
  o.test_share = 0.01;  // 40 samples: none to test
  EXPECT_CONTAINS(kiln::testing::error_message([&] { kiln::open_data("csv:" + path, o); }),
                  "leaves 0 to test and 40 to train");
}

TEST(DataSpec, ATestShareForASourceWithItsOwnTestSplitIsAnErrorNotIgnored) {
  kiln::DataSpecOptions o;
  o.samples = 100;
  EXPECT_FALSE(kiln::open_data("article", o).test == nullptr);
  EXPECT_TRUE(kiln::open_data("article", o).own_test_split);
  o.test_share = 0.2;
  EXPECT_CONTAINS(kiln::testing::error_message([&] { kiln::open_data("article", o); }),
                  "DataSpecOptions::test_share 0.2: data spec article has a test split of its own");
}

TEST(DataSpec, TestDataIsASeparateTestSourceThatMustMatch) {
  const auto dir = kiln::testing::fresh_folder("spec_test_data");
  const std::string train = kiln::testing::write_text(dir / "train.csv", numbered_rows(30));
  const std::string test = kiln::testing::write_text(dir / "test.csv", numbered_rows(7));
  kiln::DataSpecOptions o;
  o.test_data = "csv:" + test + ":label=price:target=float";
  const kiln::DataSplits data = kiln::open_data("csv:" + train + ":label=price:target=float", o);
  EXPECT_EQ(data.train->size(), 30);  // nothing held out
  ASSERT_NE(data.test, nullptr);
  EXPECT_EQ(data.test->size(), 7);
  EXPECT_CONTAINS(data.test->describe(), "test.csv");
  // Class labels against float targets: refused, naming both.
  EXPECT_CONTAINS(kiln::testing::error_message([&] { kiln::open_data("csv:" + train, o); }),
                  "has float targets of shape (1,), but the training data");
  const std::string wide = kiln::testing::write_text(dir / "wide.csv", "a,b,c,d\n1,2,3,4\n");
  o.test_data = "csv:" + wide;
  EXPECT_CONTAINS(kiln::testing::error_message([&] { kiln::open_data("csv:" + train, o); }),
                  "has samples of shape (3,), but the training data has (2,)");
}
