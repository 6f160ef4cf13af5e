// JsonLog (training/json_log.h): append, check — a full disk is an error, not a short log; the
// file is opened as every output is (core/output_file.h), never through a symbolic link.
#include "kiln/training/json_log.h"

#include <fcntl.h>

#include "kiln/core/output_file.h"
#include "kiln/report/report_format.h"

namespace kiln {

namespace {
constexpr const char* kWhat = "TrainerOptions::log_json";
}  // namespace

JsonLog::JsonLog(std::string path) : path_(std::move(path)) {
  OutputFile(path_, O_WRONLY | O_APPEND | O_CREAT, kWhat);  // fails now rather than after an epoch
}

void JsonLog::on_epoch_end(Trainer& trainer, const EpochReport& report) {
  (void)trainer;
  OutputFile(path_, O_WRONLY | O_APPEND | O_CREAT, kWhat).write_all(to_json_line(report) + "\n");
}

}  // namespace kiln
