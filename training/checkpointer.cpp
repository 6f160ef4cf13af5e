// Checkpointer (training/checkpointer.h).
#include "kiln/training/checkpointer.h"

#include "kiln/checkpoint/checkpoint.h"
#include "kiln/training/trainer.h"

namespace kiln {

Checkpointer::Checkpointer(const std::string& dir, int keep, Module& model,
                           const Optimizer& optimizer)
    : folder_(dir, keep), model_(model), optimizer_(optimizer) {}

void Checkpointer::on_epoch_end(Trainer& trainer, const EpochReport& report) {
  (void)report;
  save(trainer);
}

void Checkpointer::save(const Trainer& trainer) {
  TrainingState state = trainer.state();
  // Described now: the description holds the learning rate the schedule has reached.
  if (state.optimizer.empty()) state.optimizer = optimizer_.describe();
  save_checkpoint(folder_, model_, optimizer_, state);
}

}  // namespace kiln
