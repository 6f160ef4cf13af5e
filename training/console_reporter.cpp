// ConsoleReporter (training/console_reporter.h).
#include "kiln/training/console_reporter.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <ostream>
#include <string>

#include "kiln/report/report_format.h"
#include "kiln/training/trainer.h"

namespace kiln {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Whether `out` writes to a terminal: the standard streams when their file is one; any other
// stream (a file, a string) never.
bool writes_to_terminal(const std::ostream& out) {
  if (&out == &std::cout) return isatty(STDOUT_FILENO) != 0;
  if (&out == &std::cerr || &out == &std::clog) return isatty(STDERR_FILENO) != 0;
  return false;
}

}  // namespace

ConsoleReporter::ConsoleReporter(std::ostream& out, bool progress, const SettingWords& words)
    : out_(out), words_(words), show_progress_(progress && writes_to_terminal(out)) {}

void ConsoleReporter::on_fit_begin(Trainer& trainer, std::int64_t epochs) {
  planned_epochs_ = epochs;
  const std::int64_t steps = trainer.options().steps;
  if (steps > 0) {  // counted in steps: `epochs` is the number of evaluations
    if (trainer.state().global_step >= steps)
      out_ << fmt::format("nothing to train: the checkpoint holds all {} steps (raise {})\n",
                          trainer.state().global_step, words_.phrase({Setting::steps, ""}));
    return;
  }
  if (trainer.state().epoch >= epochs)
    out_ << fmt::format("nothing to train: the checkpoint holds all {} epochs (raise {})\n",
                        trainer.state().epoch, words_.phrase({Setting::epochs, ""}));
}

void ConsoleReporter::on_epoch_begin(Trainer& trainer, std::int64_t epoch) {
  (void)trainer, (void)epoch;
  epoch_start_ = last_print_ = Clock::now();
}

void ConsoleReporter::on_step_end(Trainer& trainer, const StepEnd& step) {
  (void)trainer;
  if (!show_progress_ || seconds_since(last_print_) <= 0.5) return;
  const double elapsed = seconds_since(epoch_start_);
  const double rate = static_cast<double>(step.step) * static_cast<double>(step.batch_size) /
                      std::max(elapsed, 1e-9);
  const double eta =
      elapsed * static_cast<double>(step.epoch_steps - step.step) / static_cast<double>(step.step);
  const double loss = step.running != nullptr ? step.running->read().mean_loss : 0.0;
  out_ << fmt::format("\r{}  batch {}/{}  {:.0f} samples/s  loss {:.4f}  ETA {:.0f} s   ",
                      epoch_label(step.epoch, planned_epochs_), step.step, step.epoch_steps, rate,
                      loss, eta)
       << std::flush;
  last_print_ = Clock::now();
}

void ConsoleReporter::on_epoch_end(Trainer& trainer, const EpochReport& report) {
  (void)trainer;
  if (show_progress_) out_ << "\r" << std::string(100, ' ') << "\r";
  out_ << format_epoch_summary(report, planned_epochs_) << "\n"
       << format_stage_table(report) << std::flush;
}

void ConsoleReporter::on_fit_end(Trainer& trainer, const FitResult& result) {
  (void)trainer;
  if (!result.epochs.empty()) out_ << result.diagnosis.text(words_) << std::flush;
}

}  // namespace kiln
