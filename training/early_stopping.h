// EarlyStopping: the observer that ends fit() once the loss it watches (the test loss by default)
// has not improved by more than `min_delta` for `patience` epochs, as Keras's and Lightning's
// callbacks do. Watching the test loss in a fit without a test loader is refused as the fit
// begins (as Lightning refuses a monitor that is never logged): it would never stop. It only asks
// the trainer to stop (request_stop): the epoch it judged is finished and checkpointed.
#pragma once

#include <cstdint>
#include <limits>

#include "kiln/training/observer.h"

namespace kiln {

enum class EarlyStoppingMonitor { test_loss, train_loss };

struct EarlyStoppingOptions {
  std::int64_t patience = 3;  // epochs without improvement that end the run (>= 1)
  EarlyStoppingMonitor monitor = EarlyStoppingMonitor::test_loss;
  double min_delta = 0.0;  // a smaller fall of the loss is no improvement (>= 0)
};

class EarlyStopping : public TrainingObserver {
 public:
  explicit EarlyStopping(EarlyStoppingOptions options = {});  // throws for options out of range
  // Throws kiln::Error when it watches the test loss and the fit has no test loader.
  void on_fit_begin(Trainer& trainer, std::int64_t epochs) override;
  void on_epoch_end(Trainer& trainer, const EpochReport& report) override;

  double best_loss() const { return best_; }
  std::int64_t epochs_without_improvement() const { return waited_; }

 private:
  EarlyStoppingOptions options_;
  double best_ = std::numeric_limits<double>::infinity();
  std::int64_t waited_ = 0;
};

}  // namespace kiln
