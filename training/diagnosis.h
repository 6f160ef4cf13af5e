// The bottleneck diagnosis: from an epoch's measurements, what limits training and what to
// change, in plain words — "input-bound: 81 % of step time waiting for data; try --workers 8
// --pin-memory". A pure function of the report, so each rule is tested on made-up figures.
#pragma once

#include <string>
#include <vector>

#include "kiln/training/epoch_report.h"

namespace kiln {

// cores: the machine's CPU cores, to bound the worker advice.
std::vector<std::string> diagnose(const EpochReport& report, int cores);

}  // namespace kiln
