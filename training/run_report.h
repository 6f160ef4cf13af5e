// RunReport: the observer that keeps an HTML report of a run in a folder, `report.html`
// (report/run_report_page.h: curves, stage shares, memory, the diagnosis, the settings). Every
// rank runs the observers it is given: add it on one (rank 0).
//
//   trainer.add_observer(std::make_shared<kiln::RunReport>("runs/mlp"));
#pragma once

#include <string>

#include "kiln/report/run_report_page.h"
#include "kiln/training/diagnosis.h"
#include "kiln/training/observer.h"

namespace kiln {

struct RunReportOptions {
  std::string title = "kiln run report";
  // How the diagnosis words its advice and the run's record names its settings; null: by this
  // API's fields ("TrainerOptions::run.lr"). An app passes its own words (train: its flags).
  const SettingWords* words = nullptr;
};

// The page is written when fit() begins, after each epoch and when fit() ends, each time to a
// temporary file renamed over the old one, so a browser that has it open never reads half a page;
// while the run goes on the page reloads itself.
class RunReport : public TrainingObserver {
 public:
  // Creates `dir` if missing and writes a first page now, so a bad path fails before any work.
  explicit RunReport(std::string dir, RunReportOptions options = {});

  void on_fit_begin(Trainer& trainer, std::int64_t epochs) override;
  void on_epoch_end(Trainer& trainer, const EpochReport& report) override;
  void on_fit_end(Trainer& trainer, const FitResult& result) override;
  std::string path() const { return dir_ + "/report.html"; }

 private:
  void write();

  std::string dir_;
  RunReportOptions options_;
  RunReportContent content_;
};

}  // namespace kiln
