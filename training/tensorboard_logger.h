// TensorBoardLogger: the observer that writes a run's epochs as TensorBoard scalars
// (report/epoch_scalars.h) into a new event file in a folder (io/tensorboard/), so TensorBoard
// pointed at DIR shows a run as it goes. Every rank runs the observers it is given: add it on one.
#pragma once

#include <cstdint>
#include <string>

#include "kiln/io/tensorboard/event_file_writer.h"
#include "kiln/training/observer.h"

namespace kiln {

class Module;

struct TensorBoardLoggerOptions {
  // Every this many epochs (0: never), a histogram of each parameter of `model` and of its
  // gradient (the last step's), tagged "weights/<name>" and "gradients/<name>".
  std::int64_t histogram_every = 0;
  const Module* model = nullptr;  // must outlive the logger when histogram_every > 0
};

// Added on rank 0:
//   trainer.add_observer(std::make_shared<kiln::TensorBoardLogger>("runs/mlp"));
class TensorBoardLogger : public TrainingObserver {
 public:
  // Creates `dir` if missing and the event file in it now, so a bad path fails before any work.
  explicit TensorBoardLogger(const std::string& dir, TensorBoardLoggerOptions options = {});
  // One event per epoch at step = the epoch, written when the epoch ends; optionally weight and
  // gradient histograms every N epochs (TensorBoardLoggerOptions::histogram_every).
  void on_epoch_end(Trainer& trainer, const EpochReport& report) override;
  const std::string& path() const { return writer_.path(); }  // the event file

 private:
  EventFileWriter writer_;
  TensorBoardLoggerOptions options_;
};

}  // namespace kiln
