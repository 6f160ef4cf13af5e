#include "kiln/models/tuning.h"

#include <fmt/format.h>

#include <ostream>
#include <sstream>

#include "kiln/core/memory.h"

namespace kiln {

namespace {

TrialResult run_trial(TrainOptions o, std::int64_t steps) {
  o.epochs = 1;
  o.max_steps = steps;
  o.evaluate = false;
  o.quiet = true;
  o.checkpoint_dir.clear();
  o.resume = false;
  o.log_json.clear();
  std::ostringstream silent;
  const TrainResult result = train(o, silent);
  const EpochReport& r = result.epochs.at(0);
  return TrialResult{o.workers, o.pin_memory, o.batch_size, r.samples_per_s,
                     r.stage_percent(Stage::data_wait), r.gpu_memory_peak_mib, false};
}

void print_table(std::ostream& out, const std::vector<TrialResult>& trials) {
  out << fmt::format("  {:>7} {:>6} {:>7} {:>12} {:>10} {:>14}\n", "workers", "pinned", "batch", "samples/s",
                     "data wait", "GPU peak MiB");
  for (const auto& t : trials) {
    if (t.out_of_memory) {
      out << fmt::format("  {:>7} {:>6} {:>7} {:>12}\n", t.workers, t.pin_memory ? "yes" : "no", t.batch_size,
                         "out of memory");
      continue;
    }
    out << fmt::format("  {:>7} {:>6} {:>7} {:>12.0f} {:>9.1f}% {:>14.0f}\n", t.workers,
                       t.pin_memory ? "yes" : "no", t.batch_size, t.samples_per_s, t.data_wait_percent,
                       t.gpu_memory_peak_mib);
  }
}

const TrialResult& fastest(const std::vector<TrialResult>& trials) {
  const TrialResult* best = &trials.front();
  for (const auto& t : trials)
    if (!t.out_of_memory && t.samples_per_s > best->samples_per_s) best = &t;
  return *best;
}

}  // namespace

std::vector<TrialResult> tune_loader(TrainOptions base, std::ostream& out, std::int64_t steps) {
  const bool gpu = Device::parse(base.device).is_cuda();
  std::vector<TrialResult> trials;
  out << fmt::format("tuning the loader: {} steps of batch {} per setting on {}\n", steps, base.batch_size,
                     base.device);
  for (bool pin : gpu ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
    for (int workers : {0, 1, 2, 4, 8, 16}) {
      base.workers = workers;
      base.pin_memory = pin;
      trials.push_back(run_trial(base, steps));
    }
  }
  print_table(out, trials);
  const TrialResult& best = fastest(trials);
  out << fmt::format("best: --workers {}{} ({:.0f} samples/s, {:.1f} % waiting for data)\n", best.workers,
                     best.pin_memory ? " --pin-memory" : "", best.samples_per_s, best.data_wait_percent);
  return trials;
}

std::vector<TrialResult> find_batch_size(TrainOptions base, std::ostream& out, std::int64_t start,
                                         std::int64_t limit, std::int64_t steps) {
  const Device device = Device::parse(base.device);
  std::vector<TrialResult> trials;
  out << fmt::format("finding the batch size on {}: doubling from {} with {} real steps each\n", base.device,
                     start, steps);
  for (std::int64_t batch = start; batch <= limit; batch *= 2) {
    base.batch_size = batch;
    try {
      trials.push_back(run_trial(base, steps));
    } catch (const OutOfMemory&) {
      if (device.is_cuda()) empty_cache(device);  // recover: give the failed attempt's blocks back
      TrialResult t;
      t.batch_size = batch;
      t.workers = base.workers;
      t.pin_memory = base.pin_memory;
      t.out_of_memory = true;
      trials.push_back(t);
      break;
    }
    if (device.is_cuda()) empty_cache(device);
  }
  print_table(out, trials);
  std::int64_t largest = 0;
  for (const auto& t : trials)
    if (!t.out_of_memory) largest = t.batch_size;
  const TrialResult& best = fastest(trials);
  out << fmt::format("largest batch that fits: {}{}; best throughput: batch {} ({:.0f} samples/s)\n", largest,
                     trials.back().out_of_memory ? "" : fmt::format(" (stopped at the limit {})", limit),
                     best.batch_size, best.samples_per_s);
  return trials;
}

}  // namespace kiln
