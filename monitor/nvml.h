// NVML, the driver's management library, loaded with dlopen: the driver ships
// libnvidia-ml.so.1 and the toolkit here no NVML header, so the few entry points kiln uses are
// declared in nvml.cpp as nvml.h declares them. Any of them may be missing (an old driver):
// each is null then, and its caller reports "cannot tell". Used by GpuMonitor and kiln-doctor.
#pragma once

#include <string>
#include <vector>

namespace kiln::nvml {

struct Utilization {
  unsigned int gpu;
  unsigned int memory;
};

struct ProcessMemory {
  unsigned int pid = 0;
  unsigned long long used_bytes = 0;
};

// The device of a PCI bus id ("0000:3b:00.0"), or nullptr without NVML or such a device.
void* device_by_pci_bus_id(const std::string& bus_id);

bool utilization(void* device, Utilization& out);
// PCIe link as it runs now (an idle card lowers it) and at most; -1 where NVML does not say.
int pcie_generation(void* device);
int pcie_width(void* device);
int max_pcie_generation(void* device);
int max_pcie_width(void* device);
// The SM clock now and at most, in MHz; -1 where NVML does not say.
int sm_clock_mhz(void* device);
int max_sm_clock_mhz(void* device);
// The compute processes on the device (this one included); empty where NVML does not say.
std::vector<ProcessMemory> compute_processes(void* device);

}  // namespace kiln::nvml
