// Which device runtime serves each device kind: the CPU's always, CUDA's once its backend has
// registered (core/cuda/device_runtime.cpp, at load time), never in a CPU-only build.
#include "kiln/core/device_runtime.h"

#include <atomic>

#include "kiln/core/error.h"

namespace kiln {

namespace {
// The registered CUDA runtime. Registration runs during static initialisation, lookups after it.
std::atomic<DeviceRuntime*>& cuda_slot() {
  static std::atomic<DeviceRuntime*> slot{nullptr};
  return slot;
}
}  // namespace

DeviceRuntime* find_device_runtime(Device::Kind kind) noexcept {
  if (kind == Device::Kind::cpu) return &detail::cpu_runtime();
  return cuda_slot().load(std::memory_order_acquire);
}

DeviceRuntime& device_runtime(Device::Kind kind, const char* what) {
  DeviceRuntime* runtime = find_device_runtime(kind);
  if (runtime == nullptr) [[unlikely]]
    detail::throw_built_without_cuda(what);
  return *runtime;
}

RegisterDeviceRuntime::RegisterDeviceRuntime(Device::Kind kind, DeviceRuntime& runtime) {
  KILN_CHECK(kind == Device::Kind::cuda,
             "only a CUDA runtime registers itself; the CPU's is built in");
  cuda_slot().store(&runtime, std::memory_order_release);
}

}  // namespace kiln
