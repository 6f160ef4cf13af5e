// JsonLog (training/json_log.h): append, flush, check — a full disk is an error, not a short log.
#include "kiln/training/json_log.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "kiln/core/error.h"
#include "kiln/training/report_format.h"

namespace kiln {

JsonLog::JsonLog(std::string path) : path_(std::move(path)) {
  std::ofstream log(path_, std::ios::app);
  KILN_CHECK(
      log.good(),
      "cannot open TrainerOptions::log_json file '{}' for appending: {} (does its folder exist?)",
      path_, std::strerror(errno));
}

void JsonLog::on_epoch_end(Trainer& trainer, const EpochReport& report) {
  (void)trainer;
  std::ofstream log(path_, std::ios::app);
  KILN_CHECK(log.good(), "cannot append to TrainerOptions::log_json file '{}'", path_);
  log << to_json_line(report) << "\n" << std::flush;
  KILN_CHECK(log.good(), "writing to TrainerOptions::log_json file '{}' failed (disk full?)",
             path_);
}

}  // namespace kiln
