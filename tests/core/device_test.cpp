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
      EXPECT_NE(std::string(e.what()).find("expected cpu, gpu, gpu:N"), std::string::npos)
          << e.what();
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

namespace {
// What the CUDA 13.0 runtime reports both without a driver and with one too old for it.
kiln::detail::CudaProbeFailure insufficient_driver(bool driver_present, int driver_version) {
  kiln::detail::CudaProbeFailure f;
  f.error_name = "cudaErrorInsufficientDriver";
  f.error_text = "CUDA driver version is insufficient for CUDA runtime version";
  f.insufficient_driver = true;
  f.driver_present = driver_present;
  f.runtime_version = 13000;
  f.driver_version = driver_version;
  return f;
}
}  // namespace

TEST(Device, AFailedProbeWithoutADriverSaysThereIsNoDriver) {
  const kiln::detail::CudaProbeFailure f = insufficient_driver(false, 0);
  const std::string words = kiln::detail::describe_cuda_unavailable(f);
  EXPECT_EQ(words.rfind("no NVIDIA driver is loaded on this machine", 0), 0u) << words;
  EXPECT_NE(words.find("/proc/driver/nvidia is absent"), std::string::npos) << words;
  EXPECT_EQ(words.find("too old"), std::string::npos) << words;
}

TEST(Device, AFailedProbeWithAnOldDriverSaysItIsTooOldAndWhichVersions) {
  const kiln::detail::CudaProbeFailure f = insufficient_driver(true, 12040);
  const std::string words = kiln::detail::describe_cuda_unavailable(f);
  EXPECT_NE(words.find("the NVIDIA driver is too old"), std::string::npos) << words;
  EXPECT_NE(words.find("supports CUDA 12.4, kiln's runtime is CUDA 13.0"), std::string::npos)
      << words;
}

TEST(Device, AnyOtherFailedProbeGivesTheRuntimesWords) {
  kiln::detail::CudaProbeFailure f;
  f.error_name = "cudaErrorNoDevice";
  f.error_text = "no CUDA-capable device is detected";
  f.driver_present = true;
  EXPECT_EQ(kiln::detail::describe_cuda_unavailable(f),
            "no CUDA-capable device is detected (cudaErrorNoDevice)");
}
