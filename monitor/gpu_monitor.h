// GpuMonitor: samples a GPU's utilisation (the "GPU-Util" of nvidia-smi) while training runs,
// through NVML loaded with dlopen — the driver ships libnvidia-ml.so.1, the toolkit here no NVML
// header, so the few entry points used are declared in the source. Where NVML or the device is
// missing the monitor is unavailable and reports -1; training never depends on it.
#pragma once

#include <atomic>
#include <memory>
#include <thread>

#include "kiln/core/device.h"

namespace kiln {

class GpuMonitor {
 public:
  explicit GpuMonitor(Device device, int interval_ms = 100);
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  bool available() const { return device_handle_ != nullptr; }
  void start();   // begins sampling on a background thread
  double stop();  // the mean utilisation in % since start(), or -1 when unavailable

 private:
  void* device_handle_ = nullptr;  // nvmlDevice_t
  int interval_ms_;
  std::thread sampler_;
  std::atomic<bool> running_{false};
  std::atomic<long long> sum_{0};
  std::atomic<long long> samples_{0};
};

// CPU seconds (user + system) used by this process so far, all threads together.
double process_cpu_seconds();

}  // namespace kiln
