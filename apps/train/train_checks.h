// What train checks before it trains, so that a bad flag costs no epoch and ends in one message:
// the batch against the data and the host's memory; the flags the ranks of a job must share; and
// the run's record each checkpoint holds (the Trainer compares it on resume and across ranks).
#pragma once

#include <map>
#include <string>

#include "apps/train/train_options.h"
#include "kiln/checkpoint/run_fingerprint.h"
#include "kiln/data/dataset.h"

namespace kiln {

// --batch-size at most the training set, and the loader's host slots within the host's memory.
void check_batch_fits(const TrainAppOptions& o, const Dataset& train, int world);

// Throws RanksDisagree on every rank when the ranks were given other values of the flags the
// Trainer's record does not hold (--epochs, --resume, --init, TrainAppOptions::evaluate), naming
// each with each rank's value; the Trainer compares the rest (TrainerOptions::run, --precision,
// --bucket-mb, ...).
void check_same_options_on_every_rank(const TrainAppOptions& options, Communicator& comm);

// What the run is, typed (checkpoint/run_fingerprint.h): recorded in each checkpoint, compared on
// resume and by the ranks. Only the settings of the optimizer in use: a change of optimizer is
// then one difference.
RunDescription run_description(const TrainAppOptions& o);

// The same settings keyed by flag, as kiln-checkpoint-2 recorded them: what a checkpoint of that
// format is compared with on resume (TrainerOptions::legacy_settings).
std::map<std::string, std::string> legacy_run_settings(const TrainAppOptions& o);

}  // namespace kiln
