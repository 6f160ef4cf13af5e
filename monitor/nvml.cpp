// The NVML entry points kiln uses, as nvml.h declares them (return codes are ints, 0 = success;
// nvmlClockType_t 1 = NVML_CLOCK_SM).
#include "kiln/monitor/nvml.h"

#include <dlfcn.h>

#include "kiln/core/log.h"

namespace kiln::nvml {

namespace {

using Query = int (*)(void*, unsigned int*);
using ClockQuery = int (*)(void*, int, unsigned int*);

// nvmlProcessInfo_t of NVML 12 (v3 of the running-processes query).
struct ProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};

struct Api {
  int (*handle_by_pci_bus_id)(const char*, void**) = nullptr;
  int (*utilization)(void*, Utilization*) = nullptr;
  Query curr_gen = nullptr, curr_width = nullptr, max_gen = nullptr, max_width = nullptr;
  ClockQuery clock = nullptr, max_clock = nullptr;
  int (*processes)(void*, unsigned int*, ProcessInfo*) = nullptr;
  bool loaded = false;
};

template <class F> F symbol(void* library, const char* name) {
  return reinterpret_cast<F>(dlsym(library, name));
}

const Api& api() {
  static const Api a = [] {
    Api n;
    void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) return n;  // no driver: every query says "cannot tell"
    auto init = symbol<int (*)()>(library, "nvmlInit_v2");
    n.handle_by_pci_bus_id =
        symbol<int (*)(const char*, void**)>(library, "nvmlDeviceGetHandleByPciBusId_v2");
    n.utilization = symbol<int (*)(void*, Utilization*)>(library, "nvmlDeviceGetUtilizationRates");
    n.curr_gen = symbol<Query>(library, "nvmlDeviceGetCurrPcieLinkGeneration");
    n.curr_width = symbol<Query>(library, "nvmlDeviceGetCurrPcieLinkWidth");
    n.max_gen = symbol<Query>(library, "nvmlDeviceGetMaxPcieLinkGeneration");
    n.max_width = symbol<Query>(library, "nvmlDeviceGetMaxPcieLinkWidth");
    n.clock = symbol<ClockQuery>(library, "nvmlDeviceGetClockInfo");
    n.max_clock = symbol<ClockQuery>(library, "nvmlDeviceGetMaxClockInfo");
    n.processes = symbol<int (*)(void*, unsigned int*, ProcessInfo*)>(
        library, "nvmlDeviceGetComputeRunningProcesses_v3");
    n.loaded = init && n.handle_by_pci_bus_id && init() == 0;
    if (!n.loaded)
      log::debug("NVML found but unusable; GPU utilisation and link facts will not be reported");
    return n;
  }();
  return a;
}

int query(Query f, void* device) {
  unsigned int value = 0;
  return f != nullptr && device != nullptr && f(device, &value) == 0 ? static_cast<int>(value) : -1;
}

int clock_query(ClockQuery f, void* device) {
  constexpr int kSmClock = 1;
  unsigned int value = 0;
  return f != nullptr && device != nullptr && f(device, kSmClock, &value) == 0
             ? static_cast<int>(value)
             : -1;
}

}  // namespace

void* device_by_pci_bus_id(const std::string& bus_id) {
  if (!api().loaded) return nullptr;
  void* device = nullptr;
  return api().handle_by_pci_bus_id(bus_id.c_str(), &device) == 0 ? device : nullptr;
}

bool utilization(void* device, Utilization& out) {
  return api().utilization != nullptr && device != nullptr && api().utilization(device, &out) == 0;
}

int pcie_generation(void* device) { return query(api().curr_gen, device); }
int pcie_width(void* device) { return query(api().curr_width, device); }
int max_pcie_generation(void* device) { return query(api().max_gen, device); }
int max_pcie_width(void* device) { return query(api().max_width, device); }
int sm_clock_mhz(void* device) { return clock_query(api().clock, device); }
int max_sm_clock_mhz(void* device) { return clock_query(api().max_clock, device); }

std::vector<ProcessMemory> compute_processes(void* device) {
  std::vector<ProcessMemory> out;
  if (api().processes == nullptr || device == nullptr) return out;
  unsigned int count = 64;
  std::vector<ProcessInfo> infos(count);
  if (api().processes(device, &count, infos.data()) != 0) return out;
  for (unsigned int i = 0; i < count && i < infos.size(); ++i)
    out.push_back({infos[i].pid, infos[i].used_gpu_memory});
  return out;
}

}  // namespace kiln::nvml
