// JsonLog: the observer that appends one JSON line per epoch (report/report_format.h's
// to_json_line) to a file, as TrainerOptions::log_json asks. The file is opened for appending at
// construction, so a bad path fails before any work.
#pragma once

#include <string>

#include "kiln/training/observer.h"

namespace kiln {

class JsonLog : public TrainingObserver {
 public:
  explicit JsonLog(std::string path);  // throws kiln::Error when the file cannot be appended to
  void on_epoch_end(Trainer& trainer, const EpochReport& report) override;

 private:
  std::string path_;
};

}  // namespace kiln
