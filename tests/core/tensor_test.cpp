#include <gtest/gtest.h>

#include "kiln/core/memory.h"
#include "kiln/core/ops.h"
#include "kiln/core/tensor.h"
#include "tests/support/tensor_testing.h"

using kiln::Device;
using kiln::DType;
using kiln::Shape;
using kiln::Tensor;

TEST(Tensor, EmptyIsAlignedAndDescribesItself) {
  const Tensor t = Tensor::empty({33, 7});
  EXPECT_TRUE(t.defined());
  EXPECT_EQ(t.numel(), 231);
  EXPECT_EQ(t.nbytes(), 231u * 4u);
  EXPECT_EQ(t.dtype(), DType::f32);
  EXPECT_EQ(t.device(), Device::cpu());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.raw_data()) % kiln::kCpuAlignment, 0u);
  EXPECT_EQ(t.str(), "Tensor(float32, (33, 7), cpu)");
  EXPECT_FALSE(Tensor().defined());
}

TEST(Tensor, FromVectorRoundTripsFloatsAndInts) {
  const auto values = kiln::testing::random_values(1000, 3);
  EXPECT_EQ(Tensor::from_vector(values, {10, 100}).to_vector<float>(), values);
  const std::vector<std::int32_t> labels{3, -1, 7, 0, 9, 2, 2};
  EXPECT_EQ(Tensor::from_vector(labels, {7}).to_vector<std::int32_t>(), labels);
  EXPECT_THROW(Tensor::from_vector(values, {7, 7}), kiln::Error);
}

TEST(Tensor, CopiesShareStorageAndSlicesAreViewsAlongTheFirstAxis) {
  Tensor t = kiln::testing::random_tensor({7, 33}, 11);
  const auto values = t.to_vector<float>();
  Tensor alias = t;
  EXPECT_TRUE(alias.shares_storage_with(t));
  Tensor rows = t.slice(2, 5);
  EXPECT_EQ(rows.shape(), (Shape{3, 33}));
  EXPECT_TRUE(rows.shares_storage_with(t));
  const auto row_values = rows.to_vector<float>();
  for (int i = 0; i < 3 * 33; ++i) EXPECT_EQ(row_values[i], values[2 * 33 + i]);
  kiln::fill(rows, 4.5f);  // writes through to the parent
  const auto after = t.to_vector<float>();
  EXPECT_EQ(after[2 * 33], 4.5f);
  EXPECT_EQ(after[5 * 33 - 1], 4.5f);
  EXPECT_EQ(after[5 * 33], values[5 * 33]);
  EXPECT_EQ(t.slice(7, 7).numel(), 0);
  EXPECT_THROW(t.slice(3, 8), kiln::Error);
  EXPECT_THROW(t.slice(4, 3), kiln::Error);
}

TEST(Tensor, ViewKeepsElementsAndRejectsAnotherCount) {
  Tensor t = kiln::testing::random_tensor({6, 4}, 5);
  Tensor v = t.view({2, 12});
  EXPECT_EQ(v.to_vector<float>(), t.to_vector<float>());
  try {
    t.view({5, 5});
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("(5, 5)"), std::string::npos) << e.what();
  }
}

TEST(Tensor, CloneIsADeepCopy) {
  Tensor t = kiln::testing::random_tensor({1, 7}, 9);
  Tensor c = t.clone();
  EXPECT_FALSE(c.shares_storage_with(t));
  kiln::fill(c, 0.0f);
  EXPECT_NE(t.to_vector<float>(), c.to_vector<float>());
}

TEST(Tensor, TypedAccessChecksTheDType) {
  Tensor t = Tensor::zeros({3}, DType::i32);
  EXPECT_NO_THROW(t.data<std::int32_t>());
  EXPECT_THROW(t.data<float>(), kiln::Error);
  EXPECT_THROW(t.item(), kiln::Error);
  EXPECT_FLOAT_EQ(Tensor::full({1}, 2.5f).item(), 2.5f);
}

TEST(Tensor, CpuMemoryIsCountedAndReturned) {
  const kiln::MemoryStats before = kiln::memory_stats(Device::cpu());
  {
    Tensor t = Tensor::empty({1000, 33});
    const kiln::MemoryStats during = kiln::memory_stats(Device::cpu());
    EXPECT_EQ(during.raw_allocations, before.raw_allocations + 1);
    EXPECT_GE(during.in_use, before.in_use + 1000 * 33 * 4);
    EXPECT_GE(during.peak_in_use, during.in_use);
  }
  const kiln::MemoryStats after = kiln::memory_stats(Device::cpu());
  EXPECT_EQ(after.in_use, before.in_use);
  EXPECT_EQ(after.raw_frees, before.raw_frees + 1);
}
