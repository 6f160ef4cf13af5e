// NVML through dlopen, and the process's CPU time through getrusage. The device's PCI bus id
// comes from the CUDA device runtime (core/device_runtime.h); without one there is nothing to
// sample.
#include "kiln/training/gpu_monitor.h"

#include <dlfcn.h>
#include <sys/resource.h>

#include <chrono>

#include "kiln/core/device_runtime.h"
#include "kiln/core/log.h"

namespace kiln {

namespace {

// The NVML entry points used, as declared in nvml.h (return codes are ints, 0 = success).
struct NvmlUtilization {
  unsigned int gpu;
  unsigned int memory;
};
struct Nvml {
  int (*init)() = nullptr;
  int (*handle_by_pci_bus_id)(const char*, void**) = nullptr;
  int (*utilization)(void*, NvmlUtilization*) = nullptr;
  bool loaded = false;
};

const Nvml& nvml() {
  static const Nvml api = [] {
    Nvml n;
    void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) return n;  // no driver: the monitor stays unavailable
    n.init = reinterpret_cast<int (*)()>(dlsym(library, "nvmlInit_v2"));
    n.handle_by_pci_bus_id =
        reinterpret_cast<int (*)(const char*, void**)>(dlsym(library, "nvmlDeviceGetHandleByPciBusId_v2"));
    n.utilization =
        reinterpret_cast<int (*)(void*, NvmlUtilization*)>(dlsym(library, "nvmlDeviceGetUtilizationRates"));
    n.loaded = n.init && n.handle_by_pci_bus_id && n.utilization && n.init() == 0;
    if (!n.loaded) log::debug("NVML found but unusable; GPU utilisation will not be reported");
    return n;
  }();
  return api;
}

}  // namespace

GpuMonitor::GpuMonitor(Device device, int interval_ms) : interval_ms_(interval_ms) {
  if (!device.is_cuda() || !nvml().loaded) return;
  DeviceRuntime* cuda = find_device_runtime(Device::Kind::cuda);
  if (cuda == nullptr) return;
  // CUDA and NVML number devices differently (CUDA_VISIBLE_DEVICES); the PCI bus id is common.
  const std::string bus_id = cuda->pci_bus_id(device.index());
  if (nvml().handle_by_pci_bus_id(bus_id.c_str(), &device_handle_) != 0) device_handle_ = nullptr;
}

GpuMonitor::~GpuMonitor() {
  if (sampler_.joinable()) stop();
}

void GpuMonitor::start() {
  if (!available() || running_) return;
  sum_ = 0;
  samples_ = 0;
  running_ = true;
  sampler_ = std::thread([this] {
    while (running_) {
      NvmlUtilization u{};
      if (nvml().utilization(device_handle_, &u) == 0) {
        sum_ += u.gpu;
        ++samples_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms_));
    }
  });
}

double GpuMonitor::stop() {
  if (!available()) return -1.0;
  running_ = false;
  if (sampler_.joinable()) sampler_.join();
  return samples_ > 0 ? static_cast<double>(sum_) / static_cast<double>(samples_) : -1.0;
}

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace kiln
