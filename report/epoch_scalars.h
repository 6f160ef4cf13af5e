// An epoch's figures as named scalars, for the logs that plot them per epoch (TensorBoard): loss
// and accuracy of both splits, learning rate, samples/s, each stage's share of the step, GPU
// memory and utilisation. A figure that was not measured (no test split, float targets, no GPU)
// is left out rather than logged as 0 or NaN.
#pragma once

#include <string_view>
#include <vector>

#include "kiln/io/tensorboard/event_file_writer.h"
#include "kiln/report/epoch_report.h"

namespace kiln {

// "data_wait", "copy", "forward", "backward", "graph", "optimizer", "allreduce": a stage's name
// as a tag or key (stage_name is the printed one).
std::string_view stage_key(Stage stage);

// "loss/train", "loss/test", "accuracy/train", "accuracy/test" (a fraction), "learning_rate",
// "samples_per_s", "stage_percent/<stage_key>" (% of the step; graph and allreduce only when they
// took time, as in the stage table), "gpu/memory_in_use_mib", "gpu/memory_peak_mib",
// "gpu/utilization_percent".
std::vector<Scalar> epoch_scalars(const EpochReport& report);

}  // namespace kiln
