// --workers as a number or auto (apps/train/workers_flag.h).
#include "apps/train/workers_flag.h"

#include <algorithm>
#include <charconv>
#include "kiln/core/cpu_description.h"
#include "kiln/core/error.h"

namespace kiln {

namespace {

int machine_cores() { return cpu_description().logical_cpus; }

}  // namespace

void set_workers_flag(const std::string& value, TrainAppOptions& o) {
  if (value == "auto") {
    o.workers_auto = true;
    return;
  }
  int workers = -1;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), workers);
  KILN_CHECK(
      !value.empty() && ec == std::errc() && end == value.data() + value.size(),
      "--workers takes a number of loader threads (0: load in the training thread) or auto (try "
      "settings at the start and keep the fastest), found '{}'",
      value);
  o.workers = workers;
  o.workers_auto = false;
}

std::optional<LoaderTuningOptions> loader_tuning_of(const TrainAppOptions& o, Device device) {
  if (!o.workers_auto) return std::nullopt;
  LoaderTuningOptions tuning = o.loader_tuning;
  tuning.pin_memory = device.is_cuda() && !o.pin_memory;
  return tuning;
}

int most_workers(const TrainAppOptions& o) {
  if (!o.workers_auto) return o.workers;
  const std::vector<int> tried = o.loader_tuning.worker_counts.empty()
                                     ? worker_candidates(machine_cores())
                                     : o.loader_tuning.worker_counts;
  return *std::max_element(tried.begin(), tried.end());
}

}  // namespace kiln
