// epoch_scalars (report/epoch_scalars.h).
#include "kiln/report/epoch_scalars.h"

#include <cmath>
#include <string>

namespace kiln {

std::string_view stage_key(Stage stage) {
  switch (stage) {
    case Stage::data_wait: return "data_wait";
    case Stage::copy: return "copy";
    case Stage::forward: return "forward";
    case Stage::backward: return "backward";
    case Stage::graph: return "graph";
    case Stage::optimizer: return "optimizer";
    case Stage::allreduce: return "allreduce";
  }
  return "unknown";
}

std::vector<Scalar> epoch_scalars(const EpochReport& r) {
  std::vector<Scalar> scalars;
  const auto add = [&](std::string tag, double value) {
    if (std::isfinite(value)) scalars.push_back({std::move(tag), value});
  };
  add("loss/train", r.train_loss);
  add("accuracy/train", r.train_accuracy);
  add("loss/test", r.test_loss);
  add("accuracy/test", r.test_accuracy);
  add("learning_rate", r.lr);
  add("samples_per_s", r.samples_per_s);
  for (std::size_t i = 0; i < kStageCount; ++i) {
    const Stage s = static_cast<Stage>(i);
    if ((s == Stage::graph || s == Stage::allreduce) && r.stages[s] == 0.0) continue;
    add("stage_percent/" + std::string(stage_key(s)), r.stage_percent(s));
  }
  if (r.on_gpu) {
    if (r.gpu_memory_in_use_mib > 0) add("gpu/memory_in_use_mib", r.gpu_memory_in_use_mib);
    if (r.gpu_memory_peak_mib > 0) add("gpu/memory_peak_mib", r.gpu_memory_peak_mib);
    if (r.gpu_utilization_percent >= 0) add("gpu/utilization_percent", r.gpu_utilization_percent);
  }
  return scalars;
}

}  // namespace kiln
