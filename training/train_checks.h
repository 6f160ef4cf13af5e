// What train checks before it trains, so that a bad path, flag or checkpoint costs no epoch and
// ends in one message: outputs opened first, the batch against the data and the host's memory,
// and a checkpoint's recorded settings against this run's.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "kiln/data/dataset.h"
#include "kiln/training/checkpoint_folder.h"
#include "kiln/training/trainer.h"
#include "kiln/training/training_state.h"

namespace kiln {

// Opens --log-json for appending (creating it) and, with --checkpoint, the locked checkpoint
// folder; nullptr without one. Throws kiln::Error naming the path.
std::unique_ptr<CheckpointFolder> open_outputs(const TrainOptions& o);

// --batch-size at most the training set, and the loader's host slots within the host's memory.
void check_batch_fits(const TrainOptions& o, const Dataset& train, int world);

// The flags that change the numbers of a run, by flag: recorded in each checkpoint.
std::map<std::string, std::string> run_settings(const TrainOptions& o);

// Throws kiln::Error listing every setting of `saved` that differs from this run's.
void check_resumable(const TrainOptions& o, const TrainingState& saved);

}  // namespace kiln
