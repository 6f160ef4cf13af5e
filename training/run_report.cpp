// RunReport (training/run_report.h): the content grows by an epoch at a time; the page is made
// afresh from it at each write (write_file_atomically: a temporary, fsync, rename).
#include "kiln/training/run_report.h"

#include <sys/resource.h>

#include <cmath>
#include <ctime>

#include "kiln/checkpoint/run_fingerprint.h"
#include "kiln/io/durable_file.h"
#include "kiln/io/output_folder.h"
#include "kiln/training/trainer.h"

namespace kiln {

namespace {

// The process's peak resident memory so far (Linux reports ru_maxrss in KiB).
double peak_resident_mib() {
  rusage usage{};
  return getrusage(RUSAGE_SELF, &usage) == 0 ? static_cast<double>(usage.ru_maxrss) / 1024.0 : NAN;
}

std::string now_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32] = {};
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &utc);
  return text;
}

}  // namespace

RunReport::RunReport(std::string dir, RunReportOptions options)
    : dir_(std::move(dir)), options_(std::move(options)) {
  create_output_folder(dir_, fmt::format("{}", Setting::run_report));
  content_.title = options_.title;
  write();
}

void RunReport::on_fit_begin(Trainer& trainer, std::int64_t epochs) {
  const RunFingerprint& f = trainer.fingerprint();
  const SettingWords& words = options_.words ? *options_.words : api_setting_words();
  std::vector<RunField> fields = description_fields(f.run);
  fields.push_back({Setting::precision, f.precision});
  fields.push_back({Setting::cuda_graph, f.cuda_graph ? "on" : "off"});
  if (f.max_steps > 0) fields.push_back({Setting::max_steps, std::to_string(f.max_steps)});
  content_.settings.clear();
  for (const RunField& field : fields)
    if (field.value) content_.settings.emplace_back(words.name(field.setting), *field.value);
  if (trainer.world_size() > 1)
    content_.settings.emplace_back("ranks", std::to_string(trainer.world_size()));
  if (trainer.loader_tuning())
    content_.settings.emplace_back(words.name(Setting::loader_tuning),
                                   describe(*trainer.loader_tuning()));
  content_.model_structure = f.model_structure;
  content_.device = trainer.device().str();
  content_.planned_epochs = epochs;
  content_.finished = false;
  write();
}

void RunReport::on_epoch_end(Trainer& trainer, const EpochReport& report) {
  content_.epochs.push_back(report);
  content_.host_peak_mib.push_back(peak_resident_mib());
  content_.diagnosis =
      trainer.diagnose(report).lines(options_.words ? *options_.words : api_setting_words());
  write();
}

void RunReport::on_fit_end(Trainer& trainer, const FitResult& result) {
  (void)trainer;
  if (!result.epochs.empty())
    content_.diagnosis =
        result.diagnosis.lines(options_.words ? *options_.words : api_setting_words());
  content_.finished = true;
  write();
}

void RunReport::write() {
  content_.updated = now_utc();
  write_file_atomically(path(), run_report_html(content_));
}

}  // namespace kiln
