// --workers N or --workers auto: the loader's threads as a number, or tried at the start of the
// run and the fastest kept (TrainerOptions::loader_tuning, data/loader_tuning.h).
#pragma once

#include <optional>
#include <string>

#include "apps/train/train_options.h"
#include "kiln/core/device.h"
#include "kiln/data/loader_tuning.h"

namespace kiln {

// "auto" sets TrainAppOptions::workers_auto; a whole number sets TrainAppOptions::workers. Anything
// else throws kiln::Error saying what --workers takes.
void set_workers_flag(const std::string& value, TrainAppOptions& o);

// The Trainer's tuning for these options: unset unless --workers auto. On a GPU pinned memory is
// tried too, unless --pin-memory asks for it (then it stays on); on the CPU it stays off.
std::optional<LoaderTuningOptions> loader_tuning_of(const TrainAppOptions& o, Device device);

// The most workers the run may use: --workers, or the most --workers auto tries here.
int most_workers(const TrainAppOptions& o);

}  // namespace kiln
