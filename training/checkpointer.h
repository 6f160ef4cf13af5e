// Checkpointer: the observer that saves a checkpoint (checkpoint/checkpoint.h) of the model, the
// optimizer and Trainer::state() — the position and the run's record — at the end of every
// epoch, the interrupted one included, into a CheckpointFolder it holds locked. The Trainer
// attaches one on rank 0 when TrainerOptions::checkpoint_dir is given; Trainer::save() uses it.
#pragma once

#include <string>

#include "kiln/checkpoint/checkpoint_folder.h"
#include "kiln/training/observer.h"

namespace kiln {

class Module;
class Optimizer;

class Checkpointer : public TrainingObserver {
 public:
  // Opens and locks `dir` (CheckpointFolder), keeping its newest `keep` checkpoints. `model` and
  // `optimizer` must outlive the checkpointer.
  Checkpointer(const std::string& dir, int keep, Module& model, const Optimizer& optimizer);

  // Saved before the console lines that announce the epoch: a run killed in between loses no work.
  void on_epoch_end(Trainer& trainer, const EpochReport& report) override;
  // Writes a checkpoint of where `trainer` stands now.
  void save(const Trainer& trainer);

 private:
  CheckpointFolder folder_;
  Module& model_;
  const Optimizer& optimizer_;
};

}  // namespace kiln
