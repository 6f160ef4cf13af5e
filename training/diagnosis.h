// The bottleneck diagnosis: from an epoch's measurements, what limits training and what to
// change, in plain words — "input-bound: 81 % of step time waiting for data; try --workers 8
// --pin-memory" — and as data a program can act on (the bottleneck, the findings, the suggested
// worker count and batch size). A pure function of the report, so each rule is tested on
// made-up figures.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/training/epoch_report.h"

namespace kiln {

// What holds the step back: waiting for the loader, copying batches to the GPU, or the compute.
enum class Bottleneck { input, copy, compute };

enum class Finding {
  input_bound,          // the loop waits for data
  copy_bound,           // host-to-device copies do not overlap compute
  compute_bound,        // the loader keeps up
  bf16_available,       // an fp32 CPU run on a CPU that multiplies bf16 in hardware
  communication_bound,  // the gradient all-reduce is not hidden by backward
  larger_batch_fits,    // GPU memory mostly free
  low_gpu_utilization,  // kernels too small to fill the GPU
};

struct DiagnosisItem {
  Finding finding;
  double percent = 0.0;  // the figure it rests on (% of step time, of GPU memory, utilisation)
  std::string text;      // one line in plain words: what was measured and what to change
};

struct Diagnosis {
  Bottleneck bottleneck = Bottleneck::compute;
  int suggested_workers = 0;              // input-bound with cores to spare (0: no advice)
  std::int64_t suggested_batch_size = 0;  // a batch that would fit in GPU memory (0: none)
  std::vector<DiagnosisItem> items;       // the bottleneck first

  bool has(Finding finding) const;
  std::vector<std::string> lines() const;  // the items' texts
  std::string text() const;                // "diagnosis:\n  <line>\n..."
};

std::string_view bottleneck_name(Bottleneck bottleneck);  // "input", "copy", "compute"

// cores: the machine's CPU cores, to bound the worker advice.
Diagnosis diagnose(const EpochReport& report, int cores);

}  // namespace kiln
