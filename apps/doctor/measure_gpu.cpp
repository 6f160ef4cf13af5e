// Host-to-device copies through the device runtime (core/device_runtime.h), from pinned and from
// pageable host memory, and NVML's facts (monitor/nvml.h): the PCIe link read while the pinned
// copies run (an idle card lowers its link), the SM clock while matrix products run. Without a
// CUDA runtime or device, `present` stays false and nothing is measured.
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include "apps/doctor/measure.h"
#include "kiln/core/device_runtime.h"
#include "kiln/core/ops.h"
#include "kiln/core/tensor.h"
#include "kiln/monitor/nvml.h"

namespace kiln::doctor {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kCopies = 8;

std::string process_name(unsigned int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name.empty() ? "pid " + std::to_string(pid) : name + " (pid " + std::to_string(pid) + ")";
}

// GB/s of kCopies copies of `bytes` from `host`; `while_running` is called once they are queued.
template <class F>
double copy_gbs(DeviceRuntime& cuda, void* device_memory, const void* host, std::size_t bytes,
                F&& while_running) {
  const DeviceRuntime::StreamHandle stream = cuda.current_stream(0);
  cuda.copy_bytes_async(device_memory, host, bytes, stream);  // warm-up: maps the pages
  cuda.synchronize_stream(stream);
  const auto start = Clock::now();
  for (int i = 0; i < kCopies; ++i) cuda.copy_bytes_async(device_memory, host, bytes, stream);
  while_running();
  cuda.synchronize_stream(stream);
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  return kCopies * static_cast<double>(bytes) / s * 1e-9;
}

}  // namespace

GpuFigures measure_gpu(const Sizes& sizes) {
  GpuFigures g;
  DeviceRuntime* cuda = find_device_runtime(Device::Kind::cuda);
  if (cuda == nullptr || cuda->device_count() == 0) return g;
  g.present = true;
  cuda->set_device(0);
  g.name = cuda->device_name(0);
  void* nvml_device = nvml::device_by_pci_bus_id(cuda->pci_bus_id(0));
  const std::size_t bytes = sizes.copy_bytes;
  void* device_memory = cuda->allocate(0, bytes);
  void* pinned = cuda->pinned_allocate(bytes);
  std::vector<unsigned char> pageable(bytes, 1);
  std::memset(pinned, 1, bytes);
  g.h2d_pinned_gbs = copy_gbs(*cuda, device_memory, pinned, bytes, [&] {
    g.pcie_gen = nvml::pcie_generation(nvml_device);
    g.pcie_width = nvml::pcie_width(nvml_device);
  });
  g.h2d_pageable_gbs = copy_gbs(*cuda, device_memory, pageable.data(), bytes, [] {});
  cuda->pinned_release(pinned);
  cuda->release(0, device_memory, bytes);
  // The SM clock under kernels: a copy leaves the SMs idle and their clock low.
  {
    const Tensor a = Tensor::full(Shape{4096, 4096}, 0.5f, Device::cuda(0));
    for (int i = 0; i < 20; ++i) (void)matmul(a, a);
    g.sm_clock_mhz = nvml::sm_clock_mhz(nvml_device);
    cuda->synchronize_stream(cuda->current_stream(0));
  }
  g.pcie_max_gen = nvml::max_pcie_generation(nvml_device);
  g.pcie_max_width = nvml::max_pcie_width(nvml_device);
  g.sm_clock_max_mhz = nvml::max_sm_clock_mhz(nvml_device);
  const unsigned int self = static_cast<unsigned int>(getpid());
  for (const nvml::ProcessMemory& p : nvml::compute_processes(nvml_device))
    if (p.pid != self)
      g.others.push_back({process_name(p.pid), static_cast<double>(p.used_bytes) / (1 << 20)});
  return g;
}

}  // namespace kiln::doctor
