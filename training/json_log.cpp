// JsonLog (training/json_log.h): append, check — a full disk is an error, not a short log; the
// file is opened as every output is (core/output_file.h), never through a symbolic link.
#include "kiln/training/json_log.h"

#include <fcntl.h>

#include "kiln/core/output_file.h"
#include "kiln/report/report_format.h"

namespace kiln {

namespace {
std::string what() {
  return fmt::format("{}", Setting::log_json);
}  // in the messages of a failed write
}  // namespace

JsonLog::JsonLog(std::string path) : path_(std::move(path)) {
  OutputFile(path_, O_WRONLY | O_APPEND | O_CREAT, what());  // fails now rather than after an epoch
}

void JsonLog::on_epoch_end(Trainer& trainer, const EpochReport& report) {
  (void)trainer;
  OutputFile(path_, O_WRONLY | O_APPEND | O_CREAT, what()).write_all(to_json_line(report) + "\n");
}

}  // namespace kiln
