// What train checks before it trains, so that a bad flag costs no epoch and ends in one message:
// the batch against the data and the host's memory; and the settings each checkpoint records
// (the Trainer compares them on resume and opens the outputs before any work).
#pragma once

#include <map>
#include <string>

#include "kiln/data/dataset.h"
#include "kiln/apps/train/train_options.h"

namespace kiln {

// --batch-size at most the training set, and the loader's host slots within the host's memory.
void check_batch_fits(const TrainOptions& o, const Dataset& train, int world);

// Throws on every rank when any rank runs with other training options (a job of mismatched
// commands would issue mismatched collectives and hang).
void check_same_options_on_every_rank(const TrainOptions& options, Communicator& comm);

// The flags that change the numbers of a run, by flag: recorded in each checkpoint and compared
// on resume (TrainerOptions::settings).
std::map<std::string, std::string> run_settings(const TrainOptions& o);

}  // namespace kiln
