// What training a model will hold in memory, estimated before it is allocated, and the check of
// that estimate against the memory free where it will live: on the host MemAvailable of
// /proc/meminfo, on a GPU the driver's free memory. A model too big is refused with the figures
// instead of allocating for seconds and ending in the out-of-memory killer.
#pragma once

#include <cstdint>
#include <string>

#include "kiln/core/device.h"

namespace kiln {

// Bytes by kind. Sums saturate at int64's maximum (an estimate that large refuses anyway).
struct MemoryEstimate {
  std::int64_t parameters = 0;
  std::int64_t gradients = 0;
  std::int64_t optimizer_state = 0;
  std::int64_t activations = 0;  // one batch's outputs and gradients
  std::int64_t workspace = 0;    // the CPU kernels' own buffers (core/cpu_workspace.h)

  std::int64_t total() const;
  // "1.2 GiB (parameters 400.0 MiB, gradients 400.0 MiB, optimizer state 400.0 MiB, activations 3.1
  // MiB, workspace 0.1 MiB)"
  std::string describe() const;
};

// a + b, or int64's maximum where it would pass it (sizes only, both >= 0).
std::int64_t saturating_add(std::int64_t a, std::int64_t b);

// The memory a new allocation can take on `device`: the host's MemAvailable (sysconf's physical
// memory where /proc/meminfo has none), a GPU's free memory. 0 when unknown.
std::uint64_t available_memory(Device device);

// Throws kiln::Error when `need` bytes do not fit in `available` bytes of `device`: names
// `what` (the model or layer), the figures of `estimate` and `advice` (what to change).
void check_memory_fits(const MemoryEstimate& estimate, std::int64_t need, std::uint64_t available,
                       Device device, const std::string& what, const std::string& advice);

}  // namespace kiln
