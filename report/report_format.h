// How an epoch's figures are shown: the one-line summary, the per-stage table of the article's
// measurement, and the JSON object of the JSON log lines (TrainerOptions::log_json).
#pragma once

#include <string>

#include "kiln/report/epoch_report.h"

namespace kiln {

// "epoch 3/10", or "epoch 3" when the planned count is unknown (0).
std::string epoch_label(std::int64_t epoch, std::int64_t epochs);
// "epoch 3/10  12.4 s  4839 samples/s  train loss 0.3012 acc 89.1 %  test loss 0.3310 acc 88.0 %";
// a step-counted run's: "step 500/2000  ...  train loss 1.9012 ppl 6.69  test loss 1.9950 ppl 7.35"
std::string format_epoch_summary(const EpochReport& r, std::int64_t epochs);
// Stage, seconds and % of step time, then CPU (and GPU) utilisation and memory.
std::string format_stage_table(const EpochReport& r);
// One line of JSON (no newline): what TrainerOptions::log_json appends per epoch.
std::string to_json_line(const EpochReport& r);

}  // namespace kiln
