// What a build or a machine without CUDA does when asked for the GPU: a clear error, no crash.
#include <gtest/gtest.h>

#include "kiln/core/memory.h"
#include "kiln/core/ops.h"
#include "kiln/core/stream.h"
#include "kiln/core/tensor.h"

using kiln::Device;
using kiln::Tensor;

namespace {
// Runs `f` and expects a kiln::Error whose message contains `words`.
template <typename F> void expect_error_containing(F&& f, const std::string& words) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << words << "'";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}
}  // namespace

TEST(WithoutAGpu, CudaTensorsStreamsAndPinnedMemoryFailClearly) {
  if (kiln::cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  const std::string reason = kiln::cuda_unavailable_reason();
  EXPECT_FALSE(reason.empty());
  const std::string words =
      kiln::cuda_device_count() == 0 && reason.find("built without") != std::string::npos
          ? "built without CUDA"
          : "CUDA";
  expect_error_containing([] { Tensor::empty({7}, kiln::DType::f32, Device::cuda(0)); }, words);
  expect_error_containing([] { Tensor::empty_pinned({7}); }, words);
  expect_error_containing([] { kiln::Stream::create(Device::cuda(0)); }, words);
  expect_error_containing([] { kiln::Event event(Device::cuda(0)); }, words);
  expect_error_containing([] { Tensor::zeros({3}).to(Device::cuda(0)); }, words);
}

TEST(CpuStreams, AreNoOpsAndEventsTimeWithTheHostClock) {
  const kiln::Stream s = kiln::Stream::current(Device::cpu());
  EXPECT_EQ(s.handle(), nullptr);
  kiln::Event a(Device::cpu()), b(Device::cpu());
  a.record(s);
  volatile double sink = 0;
  for (int i = 0; i < 100000; ++i) sink = sink + i;
  b.record(s);
  s.wait(b);
  s.synchronize();
  EXPECT_TRUE(b.query());
  EXPECT_GE(kiln::Event::elapsed_ms(a, b), 0.0);
}
