// NVML (monitor/nvml.h), and the process's CPU time through getrusage. The device's PCI bus id
// comes from the CUDA device runtime (core/device_runtime.h); without one there is nothing to
// sample.
#include "kiln/monitor/gpu_monitor.h"

#include <sys/resource.h>

#include <chrono>

#include "kiln/core/device_runtime.h"
#include "kiln/monitor/nvml.h"

namespace kiln {

GpuMonitor::GpuMonitor(Device device, int interval_ms) : interval_ms_(interval_ms) {
  if (!device.is_cuda()) return;
  DeviceRuntime* cuda = find_device_runtime(Device::Kind::cuda);
  if (cuda == nullptr) return;
  // CUDA and NVML number devices differently (CUDA_VISIBLE_DEVICES); the PCI bus id is common.
  const std::string bus_id = cuda->pci_bus_id(device.index());
  device_handle_ = nvml::device_by_pci_bus_id(bus_id);
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
      nvml::Utilization u{};
      if (nvml::utilization(device_handle_, u)) {
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
