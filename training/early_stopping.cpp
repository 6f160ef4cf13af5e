// EarlyStopping (training/early_stopping.h).
#include "kiln/training/early_stopping.h"

#include <cmath>

#include "kiln/core/error.h"
#include "kiln/training/trainer.h"

namespace kiln {

EarlyStopping::EarlyStopping(EarlyStoppingOptions options) : options_(options) {
  KILN_CHECK(options_.patience >= 1, "EarlyStoppingOptions::patience must be at least 1, found {}",
             options_.patience);
  KILN_CHECK(options_.min_delta >= 0.0 && std::isfinite(options_.min_delta),
             "EarlyStoppingOptions::min_delta must be >= 0, found {}", options_.min_delta);
}

void EarlyStopping::on_fit_begin(Trainer& trainer, std::int64_t epochs) {
  (void)epochs;
  KILN_CHECK(
      options_.monitor != EarlyStoppingMonitor::test_loss || trainer.test_loader() != nullptr,
      "EarlyStopping watches the test loss, but this fit has no test loader, so it would "
      "never stop: pass one to fit (its test argument), or set "
      "EarlyStoppingOptions::monitor = EarlyStoppingMonitor::train_loss");
}

void EarlyStopping::on_epoch_end(Trainer& trainer, const EpochReport& report) {
  const double loss =
      options_.monitor == EarlyStoppingMonitor::test_loss ? report.test_loss : report.train_loss;
  if (loss < best_ - options_.min_delta) {
    best_ = loss;
    waited_ = 0;
    return;
  }
  if (++waited_ >= options_.patience) trainer.request_stop();
}

}  // namespace kiln
