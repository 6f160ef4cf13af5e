// The bottleneck diagnosis: from an epoch's measurements, what limits training and what to change,
// as data a program can act on (the findings, their advice as settings and values) and in words:
// "input-bound: 81 % of step time waiting for data; try DataLoaderOptions::num_workers = 8". The
// words are the caller's (SettingWords): the library names its API, an app its flags. A pure
// function of the report, so each rule is tested on made-up figures.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/setting.h"
#include "kiln/report/epoch_report.h"

namespace kiln {

// What holds the step back: waiting for the loader, copying batches to the GPU, the compute, or
// other processes that take the cores the compute needs.
enum class Bottleneck { input, copy, compute, shared_cpu };

enum class Finding {
  input_bound,          // the loop waits for data
  copy_bound,           // host-to-device copies do not overlap compute
  compute_bound,        // the loader keeps up
  bf16_available,       // an fp32 CPU run on a CPU that multiplies bf16 in hardware
  communication_bound,  // the gradient all-reduce is not hidden by backward
  larger_batch_fits,    // GPU memory mostly free
  low_gpu_utilization,  // kernels too small to fill the GPU
  shared_cpu,           // other processes take a real share of the cores
  cpu_share_fell,       // the process got less CPU in a later epoch than in an earlier one
  openmp_spinning,      // idle OpenMP threads spin on cores that others (or the loader) need
};

// A setting the diagnosis advises, and the value it advises for it (core/setting.h, whose
// SettingWords put it in words).
using Advice = SettingValue;

struct DiagnosisItem {
  Finding finding;
  double percent = 0.0;  // the figure it rests on (% of step time, of GPU memory, utilisation)
  // What was measured and what to change, with one "{}" for each group of `advice`, which
  // text() fills with `words`.
  std::string message;
  std::vector<std::vector<Advice>> advice;

  std::string text(const SettingWords& words = api_setting_words()) const;
};

struct Diagnosis {
  Bottleneck bottleneck = Bottleneck::compute;
  int suggested_workers = 0;              // input-bound with cores to spare (0: no advice)
  std::int64_t suggested_batch_size = 0;  // a batch that would fit in GPU memory (0: none)
  std::vector<DiagnosisItem> items;       // the bottleneck first

  bool has(Finding finding) const;
  // The items' texts, and all of them as "diagnosis:\n  <line>\n...".
  std::vector<std::string> lines(const SettingWords& words = api_setting_words()) const;
  std::string text(const SettingWords& words = api_setting_words()) const;
};

std::string_view bottleneck_name(
    Bottleneck bottleneck);  // "input", "copy", "compute", "shared-cpu"

// cores: the machine's CPU cores, to bound the worker advice. Waiting for data 10 % of the step
// or more is input-bound: with a core idle for another worker the diagnosis suggests workers,
// with none idle it says that workers cannot help.
Diagnosis diagnose(const EpochReport& report, int cores);
// The last epoch's diagnosis, and the first epoch whose CPU share fell by a quarter or more
// against an earlier epoch's.
Diagnosis diagnose(const std::vector<EpochReport>& epochs, int cores);

}  // namespace kiln
