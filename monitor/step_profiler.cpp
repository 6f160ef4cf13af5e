#include "kiln/monitor/step_profiler.h"

namespace kiln {

std::string_view stage_name(Stage stage) {
  switch (stage) {
    case Stage::data_wait: return "data wait";
    case Stage::copy: return "host->device copy";
    case Stage::forward: return "forward";
    case Stage::backward: return "backward";
    case Stage::graph: return "whole step (CUDA graph)";
    case Stage::optimizer: return "optimizer step";
    case Stage::allreduce: return "all-reduce";
  }
  return "?";
}

double StageTotals::sum() const {
  double total = 0.0;
  for (double v : ms) total += v;
  return total;
}

StepProfiler::StepProfiler(Device device)
    : device_(device), timers_{RegionTimer("data wait", device), RegionTimer("copy", device),
                               RegionTimer("forward", device),   RegionTimer("backward", device),
                               RegionTimer("graph", device),     RegionTimer("optimizer", device),
                               RegionTimer("allreduce", device)} {}

void StepProfiler::start(Stage stage) { timers_[static_cast<std::size_t>(stage)].start(); }
void StepProfiler::stop(Stage stage) { timers_[static_cast<std::size_t>(stage)].stop(); }

void StepProfiler::add_host_ms(Stage stage, double ms) { host_ms_[stage] += ms; }

StageTotals StepProfiler::read_and_reset() {
  StageTotals totals = host_ms_;
  for (std::size_t i = 0; i < kStageCount; ++i) {
    totals.ms[i] += timers_[i].total_ms();
    timers_[i].reset();
  }
  host_ms_ = StageTotals{};
  return totals;
}

}  // namespace kiln
