// TensorBoardLogger: the observer that writes a run's epochs as TensorBoard scalars
// (training/epoch_scalars.h) into a new event file in a folder (io/tensorboard/), one event per
// epoch at step = the epoch, written when the epoch ends, so `tensorboard --logdir DIR` shows a
// run as it goes. Every rank runs the observers it is given: add it on one (rank 0).
//
//   trainer.add_observer(std::make_shared<kiln::TensorBoardLogger>("runs/mlp"));
#pragma once

#include <string>

#include "kiln/io/tensorboard/event_file_writer.h"
#include "kiln/training/observer.h"

namespace kiln {

class TensorBoardLogger : public TrainingObserver {
 public:
  // Creates `dir` if missing and the event file in it now, so a bad path fails before any work.
  explicit TensorBoardLogger(const std::string& dir);
  void on_epoch_end(Trainer& trainer, const EpochReport& report) override;
  const std::string& path() const { return writer_.path(); }  // the event file

 private:
  EventFileWriter writer_;
};

}  // namespace kiln
