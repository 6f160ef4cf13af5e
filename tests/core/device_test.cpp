#include <gtest/gtest.h>

#include "kiln/core/device.h"
#include "kiln/core/dtype.h"
#include "kiln/core/error.h"
#include "kiln/core/shape.h"

using kiln::Device;

TEST(Device, ParsesEverySpellingUsersType) {
  EXPECT_EQ(Device::parse("cpu"), Device::cpu());
  EXPECT_EQ(Device::parse("gpu"), Device::cuda(0));
  EXPECT_EQ(Device::parse("gpu:1"), Device::cuda(1));
  EXPECT_EQ(Device::parse("cuda"), Device::cuda(0));
  EXPECT_EQ(Device::parse("cuda:3"), Device::cuda(3));
  EXPECT_EQ(Device::cuda(2).str(), "cuda:2");
  EXPECT_EQ(Device::cpu().str(), "cpu");
}

TEST(Device, RejectsMalformedNamesWithTheAcceptedForms) {
  for (const char* bad : {"", "tpu", "gpu:", "gpu:x", "gpu:-1", "gpu:1x", "cpu:0", "GPU"}) {
    try {
      Device::parse(bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const kiln::Error& e) {
      EXPECT_NE(std::string(e.what()).find("expected cpu, gpu, gpu:N"), std::string::npos) << e.what();
    }
  }
}

TEST(Shape, CountsElementsAndPrints) {
  const kiln::Shape s{2, 3, 7};
  EXPECT_EQ(s.rank(), 3);
  EXPECT_EQ(s.numel(), 42);
  EXPECT_EQ(s.product(1, 3), 21);
  EXPECT_EQ(s.str(), "(2, 3, 7)");
  EXPECT_EQ(kiln::Shape{5}.str(), "(5,)");
  EXPECT_EQ(kiln::Shape{}.numel(), 1);
  EXPECT_EQ(s.axis(-1), 2);
  EXPECT_THROW(s.axis(3), kiln::Error);
  EXPECT_THROW((kiln::Shape{2, -1}), kiln::Error);
}

TEST(DType, HasSizesAndNames) {
  EXPECT_EQ(kiln::dtype_size(kiln::DType::f32), 4u);
  EXPECT_EQ(kiln::dtype_size(kiln::DType::bf16), 2u);
  EXPECT_EQ(kiln::dtype_name(kiln::DType::i32), "int32");
}

TEST(Error, CarriesMessageAndLocationApart) {
  try {
    KILN_CHECK(1 + 1 == 3, "arithmetic is off by {}", 1);
    FAIL() << "no throw";
  } catch (const kiln::Error& e) {
    EXPECT_STREQ(e.what(), "arithmetic is off by 1");
    EXPECT_NE(e.where().find("device_test.cpp:"), std::string::npos) << e.where();
    EXPECT_NE(e.where().find("1 + 1 == 3"), std::string::npos) << e.where();
  }
}
