// Sizes past int64 are refused where they are made (Shape, Tensor::empty, Linear, the loader's
// batch slots), with a message naming the operand, instead of wrapping to a small or negative
// size that later reads or writes out of bounds.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>

#include "kiln/core/checked_math.h"
#include "kiln/core/memory.h"
#include "kiln/core/random.h"
#include "kiln/core/tensor.h"
#include "kiln/data/data_loader.h"
#include "kiln/layers/linear.h"
#include "tests/data/test_datasets.h"
#include "tests/support/error_testing.h"

namespace {

using kiln::testing::error_message;
constexpr std::int64_t k2to62 = std::int64_t{1} << 62;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

TEST(CheckedMath, MultipliesWithoutWrapping) {
  EXPECT_EQ(kiln::checked_mul(3, 7), 21);
  EXPECT_FALSE(kiln::checked_mul(k2to62, 2).has_value());
  EXPECT_FALSE(kiln::checked_mul(-1, 2).has_value());
  EXPECT_EQ(kiln::checked_bytes(k2to62 / 4, 4), k2to62);
  EXPECT_FALSE(kiln::checked_bytes(k2to62, 4).has_value());
}

TEST(Shape, AnElementCountPastInt64IsRefusedNamingTheAxis) {
  const std::string m = error_message([] { kiln::Shape({3, k2to62, 5}); });
  EXPECT_NE(m.find("more elements than an int64 holds"), std::string::npos) << m;
  EXPECT_NE(m.find("at axis 1 (extent 4611686018427387904)"), std::string::npos) << m;
  EXPECT_EQ(kiln::Shape({k2to62, 1}).numel(), k2to62);
}

TEST(Shape, AnExtentMadeTooLargeAfterConstructionIsRefusedByNumel) {
  kiln::Shape s{2, 3};
  s[0] = kMax;
  EXPECT_NE(error_message([&] { (void)s.numel(); }).find("more elements than an int64 holds"),
            std::string::npos);
  EXPECT_NE(error_message([&] { (void)s.product(0, 2); }).find("at axis 1 (extent 3)"),
            std::string::npos);
}

TEST(Tensor, EmptyRefusesAShapeWhoseBytesPassInt64) {
  const std::string m = error_message([] { kiln::Tensor::empty({k2to62, 2}); });
  EXPECT_NE(m.find("more elements than an int64 holds"), std::string::npos) << m;
  const std::string bytes = error_message([] { kiln::Tensor::empty({k2to62}); });
  EXPECT_NE(bytes.find("a float32 tensor of shape (4611686018427387904,) needs 4611686018427387904 "
                       "elements of 4 "
                       "bytes, more bytes than an int64 holds"),
            std::string::npos)
      << bytes;
}

TEST(Tensor, AnAllocationThatFailsIsOutOfMemoryNamingTheTensor) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer aborts on an allocation this size instead of returning null";
#endif
  // 4 PiB: more than any address space a process has, so the allocator refuses without touching it.
  try {
    kiln::Tensor::empty({std::int64_t{1} << 50});
    FAIL() << "a 4 PiB tensor was allocated";
  } catch (const kiln::OutOfMemory& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("out of host memory"), std::string::npos) << m;
    EXPECT_NE(m.find("a float32 tensor of shape (1125899906842624,)"), std::string::npos) << m;
  }
}

TEST(Linear, SizesWhoseProductPassesInt64AreRefusedNamingTheLayer) {
  kiln::Generator gen(1);
  const std::string m = error_message([&] { kiln::Linear(2, k2to62, gen); });
  EXPECT_NE(m.find("Linear(2 -> 4611686018427387904): in_features x out_features passes"),
            std::string::npos)
      << m;
  const std::string bytes = error_message([&] { kiln::Linear(2, k2to62 / 4, gen); });
  EXPECT_NE(
      bytes.find("Linear(2 -> 1152921504606846976): its parameters: a float32 tensor of shape"),
      std::string::npos)
      << bytes;
}

// A data set whose one sample is (2^31, 2^31) floats: representable, but no batch of it is.
class HugeSampleDataset : public kiln::testing::IndexDataset {
 public:
  explicit HugeSampleDataset(kiln::Shape sample) : IndexDataset(10), sample_(std::move(sample)) {}
  kiln::Shape sample_shape() const override { return sample_; }
  std::string describe() const override { return "huge-sample set"; }

 private:
  kiln::Shape sample_;
};

TEST(DataLoader, ABatchWhoseSizePassesInt64IsRefusedNamingTheDataSet) {
  auto data = std::make_shared<HugeSampleDataset>(
      kiln::Shape{std::int64_t{1} << 31, std::int64_t{1} << 31});
  const std::string m = error_message([&] { kiln::DataLoader(data, {.batch_size = 4}); });
  EXPECT_NE(m.find("a DataLoader over huge-sample set: a batch of 4 samples:"), std::string::npos)
      << m;
  EXPECT_NE(m.find("more elements than an int64 holds"), std::string::npos) << m;
}

// A data set whose sample_shape() itself overflows (its Shape refuses to be made).
class OverflowingShapeDataset : public kiln::testing::IndexDataset {
 public:
  OverflowingShapeDataset() : IndexDataset(10) {}
  kiln::Shape sample_shape() const override { return kiln::Shape{k2to62, k2to62}; }
  std::string describe() const override { return "overflowing set"; }
};

TEST(DataLoader, ADataSetWhoseSampleShapeOverflowsIsNamed) {
  auto data = std::make_shared<OverflowingShapeDataset>();
  const std::string m = error_message([&] { kiln::DataLoader(data, {.batch_size = 2}); });
  EXPECT_NE(m.find("a DataLoader over overflowing set"), std::string::npos) << m;
}

TEST(DataLoader, ABatchSizeNearInt64GivesOneBatchOfEverySample) {
  auto data = std::make_shared<kiln::testing::IndexDataset>(7);
  for (const std::int64_t batch : {k2to62, kMax - 1, kMax}) {
    for (const bool drop_last : {false, true}) {
      kiln::DataLoader loader(data,
                              {.batch_size = batch, .shuffle = false, .drop_last = drop_last});
      EXPECT_EQ(loader.batches_per_epoch(), drop_last ? 0 : 1) << batch;
      std::int64_t rows = 0;
      for (const kiln::Batch& b : loader) rows += b.x.size(0);
      EXPECT_EQ(rows, drop_last ? 0 : 7) << batch;
    }
  }
}

}  // namespace
