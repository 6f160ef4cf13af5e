// EarlyStopping: the observer that ends fit() once the test loss (the train loss where no test
// split is evaluated) has not improved by more than `min_delta` for `patience` epochs, as
// Keras's and Lightning's callbacks do. It only asks the trainer to stop (request_stop): the
// epoch it judged is finished and checkpointed.
#pragma once

#include <cstdint>
#include <limits>

#include "kiln/training/observer.h"

namespace kiln {

struct EarlyStoppingOptions {
  std::int64_t patience = 3;  // epochs without improvement that end the run (>= 1)
  double min_delta = 0.0;     // a smaller fall of the loss is no improvement (>= 0)
};

class EarlyStopping : public TrainingObserver {
 public:
  explicit EarlyStopping(EarlyStoppingOptions options = {});  // throws for options out of range
  void on_epoch_end(Trainer& trainer, const EpochReport& report) override;

  double best_loss() const { return best_; }
  std::int64_t epochs_without_improvement() const { return waited_; }

 private:
  EarlyStoppingOptions options_;
  double best_ = std::numeric_limits<double>::infinity();
  std::int64_t waited_ = 0;
};

}  // namespace kiln
