// ConsoleReporter: the observer that writes a run's console lines to a stream — a progress line
// twice a second while an epoch trains (only when that stream is a terminal), each epoch's
// summary and stage table, the diagnosis when fit() ends. The Trainer attaches one on rank 0
// when TrainerOptions::out is given.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>

#include "kiln/training/diagnosis.h"
#include "kiln/training/observer.h"

namespace kiln {

class ConsoleReporter : public TrainingObserver {
 public:
  // `progress`: the progress line, when `out` writes to a terminal. `words` names the settings of
  // the diagnosis's advice; both must outlive the reporter.
  ConsoleReporter(std::ostream& out, bool progress, const SettingWords& words);

  void on_fit_begin(Trainer& trainer, std::int64_t epochs) override;
  void on_epoch_begin(Trainer& trainer, std::int64_t epoch) override;
  void on_step_end(Trainer& trainer, const StepEnd& step) override;
  void on_epoch_end(Trainer& trainer, const EpochReport& report) override;
  void on_fit_end(Trainer& trainer, const FitResult& result) override;

 private:
  using Clock = std::chrono::steady_clock;

  std::ostream& out_;
  const SettingWords& words_;
  bool show_progress_;
  std::int64_t planned_epochs_ = 0;  // fit()'s target, for the epoch lines (0: unknown)
  Clock::time_point epoch_start_{}, last_print_{};
};

}  // namespace kiln
