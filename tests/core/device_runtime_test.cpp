// The device-runtime interface: the CPU's runtime answers for the host, a CUDA runtime is
// registered exactly in CUDA builds, and asking for CUDA where it cannot serve names what failed.
#include "kiln/core/device_runtime.h"

#include <gtest/gtest.h>

#include "kiln/core/error.h"
#include "kiln/core/memory.h"

using kiln::Device;
using kiln::DeviceRuntime;

namespace {
template <typename F> std::string error_of(F&& f) {
  try {
    f();
  } catch (const kiln::Error& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST(DeviceRuntime, TheCpusAnswersForTheHost) {
  DeviceRuntime& cpu = kiln::device_runtime(Device::cpu(), "unused");
  EXPECT_EQ(&cpu, kiln::find_device_runtime(Device::Kind::cpu));
  EXPECT_EQ(cpu.device_count(), 1);
  EXPECT_EQ(cpu.device_name(0), "CPU");
  EXPECT_EQ(cpu.current_stream(0), nullptr);
  EXPECT_NE(error_of([&] { cpu.pinned_allocate(7); }).find("pinned host memory is a GPU facility"),
            std::string::npos);
}

TEST(DeviceRuntime, TheCpusAllocationsAreCountedAndAligned) {
  DeviceRuntime& cpu = kiln::device_runtime(Device::cpu(), "unused");
  const kiln::MemoryStats before = cpu.memory_stats(0);
  void* ptr = cpu.allocate(0, 33);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(ptr) % kiln::kCpuAlignment, 0u);
  EXPECT_EQ(cpu.memory_stats(0).in_use, before.in_use + kiln::kCpuAlignment);
  EXPECT_EQ(cpu.memory_stats(0).raw_allocations, before.raw_allocations + 1);
  cpu.release(0, ptr, 33);
  EXPECT_EQ(cpu.memory_stats(0).in_use, before.in_use);
}

TEST(DeviceRuntime, TheCpusEventsAreHostClockTimes) {
  DeviceRuntime& cpu = kiln::device_runtime(Device::cpu(), "unused");
  void* start = cpu.create_event(0);
  void* end = cpu.create_event(0);
  EXPECT_EQ(cpu.event_elapsed_ms(start, end), 0.0);  // neither recorded yet
  cpu.record_event(start, nullptr);
  cpu.record_event(end, nullptr);
  EXPECT_TRUE(cpu.query_event(end));
  EXPECT_GE(cpu.event_elapsed_ms(start, end), 0.0);
  EXPECT_LT(cpu.event_elapsed_ms(end, start), 1e-9);  // recorded in that order on one clock
  cpu.destroy_event(start);
  cpu.destroy_event(end);
}

TEST(DeviceRuntime, ACudaRuntimeIsRegisteredExactlyInCudaBuilds) {
  DeviceRuntime* cuda = kiln::find_device_runtime(Device::Kind::cuda);
  EXPECT_EQ(cuda != nullptr, KILN_TEST_BUILT_WITH_CUDA == 1);
  if (cuda == nullptr) {
    EXPECT_EQ(kiln::cuda_device_count(), 0);
    EXPECT_EQ(kiln::cuda_unavailable_reason(), "this kiln was built without CUDA");
    EXPECT_EQ(kiln::pinned_memory_stats().raw_allocations, 0u);
  } else {
    EXPECT_EQ(kiln::cuda_device_count(), cuda->device_count());
  }
}

TEST(DeviceRuntime, AskingForCudaWhereItCannotServeSaysWhy) {
  DeviceRuntime* cuda = kiln::find_device_runtime(Device::Kind::cuda);
  if (cuda == nullptr) {
    EXPECT_EQ(error_of([] { kiln::device_runtime(Device::cuda(1), "a CUDA stream"); }),
              "a CUDA stream needs CUDA, but this kiln was built without CUDA; rebuild with the "
              "CUDA toolkit installed (-DKILN_CUDA=ON) or use Device::cpu()");
    return;
  }
  // A CUDA build: a device past the last one is named, on any machine.
  const int count = cuda->device_count();
  const std::string words = error_of([&] { cuda->check_device(count); });
  if (count == 0) {
    EXPECT_NE(words.find("no CUDA device is usable: " + cuda->unavailable_reason()),
              std::string::npos)
        << words;
  } else {
    EXPECT_NE(words.find(fmt::format("CUDA device {} does not exist", count)), std::string::npos)
        << words;
  }
}
