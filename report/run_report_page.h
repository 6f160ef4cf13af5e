// The run report's page (RunReport, training/run_report.h) as a pure function of what the run
// measured: curves per epoch, each stage's share of the step, memory, the diagnosis, the settings
// and a table of the epochs. One self-contained HTML file: inline SVG charts (report/svg_chart.h),
// inline CSS, two small inline scripts.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kiln/report/epoch_report.h"

namespace kiln {

struct RunReportContent {
  std::string title = "kiln run report";
  std::string device;                                         // "cpu", "cuda:0"
  std::vector<std::pair<std::string, std::string>> settings;  // name, value: the run's record
  std::string model_structure;                                // describe_structure
  std::vector<EpochReport> epochs;
  std::vector<double> host_peak_mib;   // the process's peak resident memory after each epoch
  std::vector<std::string> diagnosis;  // of the last epoch, one line per finding
  std::int64_t planned_epochs = 0;     // fit()'s target (0: unknown)
  bool finished = false;               // fit() ended: no more reloads
  std::string updated;                 // when the page was written, as text
  int reload_seconds = 5;              // while not finished
};

// The page: loss and accuracy curves per epoch, samples/s, the learning rate, each stage's share
// of the step stacked per epoch, memory (GPU where trained on one, the process's peak resident
// memory always), the diagnosis, the settings and a table of the epochs. Of the two scripts, one
// reloads the page every few seconds while the run goes on, keeping the scroll position; the other
// marks it rendered (report/html.h's html_rendered_marker).
std::string run_report_html(const RunReportContent& content);

}  // namespace kiln
