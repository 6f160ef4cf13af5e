// StepProfiler: where a training step's time goes, stage by stage — the article's measurement.
// Compute stages are timed where they run (CUDA events on the current stream of a GPU, the
// steady clock on the CPU); waiting for data is host time by nature and is added as such.
// Totals are read once per epoch, so profiling never stalls a step.
#pragma once

#include <array>
#include <string_view>

#include "kiln/core/timer.h"

namespace kiln {

// graph: the whole step (forward, backward, update) replayed as one CUDA graph
// (TrainerOptions::cuda_graph), which cannot be split. copy: the loader's host-to-device copies,
// timed on its copy stream; they overlap the compute stages, so the shares may sum past 100 %.
enum class Stage : unsigned char {
  data_wait,
  copy,
  forward,
  backward,
  graph,
  optimizer,
  allreduce
};
inline constexpr std::size_t kStageCount = 7;
std::string_view stage_name(Stage stage);  // "data wait", "host->device copy", ...

struct StageTotals {
  std::array<double, kStageCount> ms{};
  double& operator[](Stage s) { return ms[static_cast<std::size_t>(s)]; }
  double operator[](Stage s) const { return ms[static_cast<std::size_t>(s)]; }
  double sum() const;
};

class StepProfiler {
 public:
  explicit StepProfiler(Device device);

  // Times the work queued between start() and stop() on the device's current stream.
  void start(Stage stage);
  void stop(Stage stage);
  // Host-side time measured elsewhere (the loader's wait, say).
  void add_host_ms(Stage stage, double ms);
  // Totals since the last read (waits for pending GPU events), then starts afresh.
  StageTotals read_and_reset();

 private:
  Device device_;
  std::array<RegionTimer, kStageCount> timers_;
  StageTotals host_ms_;
};

// Starts a stage on construction and stops it on destruction.
class StageScope {
 public:
  StageScope(StepProfiler& profiler, Stage stage) : profiler_(profiler), stage_(stage) {
    profiler_.start(stage_);
  }
  ~StageScope() { profiler_.stop(stage_); }
  StageScope(const StageScope&) = delete;
  StageScope& operator=(const StageScope&) = delete;

 private:
  StepProfiler& profiler_;
  Stage stage_;
};

}  // namespace kiln
