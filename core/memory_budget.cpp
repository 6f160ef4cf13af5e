// Memory estimates and their check against MemAvailable or a GPU's free memory.
#include "kiln/core/memory_budget.h"

#include <fmt/format.h>

#include <fstream>
#include <limits>
#include <sstream>

#include "kiln/core/error.h"
#include "kiln/core/host_memory.h"
#include "kiln/core/memory.h"

namespace kiln {

namespace {

std::string gib(double bytes) {
  if (bytes >= 1073741824.0) return fmt::format("{:.1f} GiB", bytes / 1073741824.0);
  return fmt::format("{:.1f} MiB", bytes / 1048576.0);
}

// MemAvailable of /proc/meminfo in bytes, or 0 where the file or the line is missing.
std::uint64_t meminfo_available() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    std::uint64_t kib = 0;
    if (fields >> kib) return kib * 1024;
  }
  return 0;
}

}  // namespace

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::int64_t>::max() : sum;
}

std::int64_t MemoryEstimate::total() const {
  return saturating_add(saturating_add(saturating_add(parameters, gradients),
                                       saturating_add(optimizer_state, activations)),
                        workspace);
}

std::string MemoryEstimate::describe() const {
  std::string text =
      fmt::format("{} (parameters {}, gradients {}, optimizer state {}, activations {}",
                  gib(static_cast<double>(total())), gib(static_cast<double>(parameters)),
                  gib(static_cast<double>(gradients)), gib(static_cast<double>(optimizer_state)),
                  gib(static_cast<double>(activations)));
  if (workspace > 0) text += fmt::format(", workspace {}", gib(static_cast<double>(workspace)));
  return text + ")";
}

std::uint64_t available_memory(Device device) {
  if (device.is_cuda()) return device_memory_info(device).free;
  const std::uint64_t available = meminfo_available();
  return available > 0 ? available : host_memory_bytes();
}

void check_memory_fits(const MemoryEstimate& estimate, std::int64_t need, std::uint64_t available,
                       Device device, const std::string& what, const std::string& advice) {
  if (available == 0 || static_cast<std::uint64_t>(need) <= available) return;  // 0: unknown
  const std::string still = need == estimate.total() ? std::string(",")
                                                     : fmt::format(", {} of it not yet allocated,",
                                                                   gib(static_cast<double>(need)));
  KILN_THROW("{} needs {} to train{} more than the {} {} on {}; {}", what, estimate.describe(),
             still, gib(static_cast<double>(available)), device.is_cuda() ? "free" : "available",
             device.str(), advice);
}

}  // namespace kiln
