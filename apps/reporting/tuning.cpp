#include "apps/reporting/tuning.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <sstream>

#include "apps/train/flag_words.h"
#include "kiln/core/error.h"
#include "kiln/core/memory.h"
#include "kiln/spec/data_spec.h"
#include "kiln/spec/model_spec.h"

namespace kiln {

namespace {

// `steps` steps of one epoch, with nothing printed, evaluated or written.
TrainResult run_trial_result(TrainAppOptions o, std::int64_t steps) {
  o.epochs = 1;
  o.max_steps = steps;
  o.steps = o.eval_interval = o.eval_iters = 0;  // a run counted in steps: the trial is steps too
  o.evaluate = false;
  o.quiet = true;
  o.checkpoint_dir.clear();
  o.resume = false;
  o.log_json.clear();
  std::ostringstream silent;
  return train(o, silent);
}

TrialResult run_trial(TrainAppOptions o, std::int64_t steps) {
  const TrainResult result = run_trial_result(o, steps);
  const EpochReport& r = result.epochs.at(0);
  const double epoch_seconds =
      static_cast<double>(r.epoch_samples) / std::max(r.samples_per_s, 1e-9);
  return TrialResult{o.workers,
                     o.pin_memory,
                     o.batch_size,
                     r.samples_per_s,
                     epoch_seconds,
                     r.stage_percent(Stage::data_wait),
                     r.gpu_memory_peak_mib,
                     false};
}

TrialResult out_of_memory_trial(const TrainAppOptions& o) {
  TrialResult t;
  t.workers = o.workers;
  t.pin_memory = o.pin_memory;
  t.batch_size = o.batch_size;
  t.out_of_memory = true;
  return t;
}

// run_trial, or an out-of-memory row after giving the failed attempt's device blocks back.
TrialResult run_trial_or_oom(const TrainAppOptions& o, std::int64_t steps) {
  const Device device = Device::parse(o.device);
  try {
    TrialResult t = run_trial(o, steps);
    if (device.is_cuda()) empty_cache(device);
    return t;
  } catch (const OutOfMemory&) {
    if (device.is_cuda()) empty_cache(device);
    return out_of_memory_trial(o);
  }
}

std::vector<bool> pin_settings(const TrainAppOptions& o) {
  return Device::parse(o.device).is_cuda() ? std::vector<bool>{false, true}
                                           : std::vector<bool>{false};
}

void print_table(std::ostream& out, const std::vector<TrialResult>& trials) {
  out << fmt::format("  {:>7} {:>6} {:>7} {:>12} {:>10} {:>10} {:>14}\n", "workers", "pinned",
                     "batch", "samples/s", "epoch s", "data wait", "GPU peak MiB");
  for (const auto& t : trials) {
    if (t.out_of_memory) {
      out << fmt::format("  {:>7} {:>6} {:>7} {:>12}\n", t.workers, t.pin_memory ? "yes" : "no",
                         t.batch_size, "out of memory");
      continue;
    }
    out << fmt::format("  {:>7} {:>6} {:>7} {:>12.0f} {:>10.1f} {:>9.1f}% {:>14.0f}\n", t.workers,
                       t.pin_memory ? "yes" : "no", t.batch_size, t.samples_per_s, t.epoch_seconds,
                       t.data_wait_percent, t.gpu_memory_peak_mib);
  }
}

const TrialResult& fastest(const std::vector<TrialResult>& trials) {
  const TrialResult* best = &trials.front();
  for (const auto& t : trials)
    if (!t.out_of_memory && t.samples_per_s > best->samples_per_s) best = &t;
  return *best;
}

}  // namespace

std::vector<TrialResult> tune_loader(TrainAppOptions base, std::ostream& out, std::int64_t steps) {
  // The library's tuning (data/loader_tuning.h), as --workers auto runs it, over the full list of
  // worker counts; the one training step after it is the price of going through train().
  base.workers_auto = true;
  base.loader_tuning.worker_counts = {0, 1, 2, 4, 8, 16};
  base.loader_tuning.batches = steps;
  out << fmt::format(
      "tuning the loader: {} batches of {} per setting on {}, read through the model's forward, "
      "the best of {} tries\n",
      steps, base.batch_size, base.device, base.loader_tuning.rounds);
  const TrainResult result = run_trial_result(base, 1);
  const EpochReport& report = result.epochs.at(0);
  KILN_CHECK(report.loader_tuning.has_value(), "the loader tuning did not run");
  const LoaderTuning& tuning = *report.loader_tuning;
  std::vector<TrialResult> trials;
  for (const LoaderTrial& t : tuning.trials)
    trials.push_back({t.setting.workers, t.setting.pin_memory, base.batch_size, t.samples_per_s,
                      static_cast<double>(report.epoch_samples) / std::max(t.samples_per_s, 1e-9),
                      t.data_wait_percent, 0.0, false});
  out << fmt::format("  {:>7} {:>6} {:>12} {:>10} {:>10}\n", "workers", "pinned", "samples/s",
                     "epoch s", "data wait");
  for (const auto& t : trials)
    out << fmt::format("  {:>7} {:>6} {:>12.0f} {:>10.1f} {:>9.1f}%\n", t.workers,
                       t.pin_memory ? "yes" : "no", t.samples_per_s, t.epoch_seconds,
                       t.data_wait_percent);
  const LoaderTrial& best = tuning.chosen;
  out << fmt::format(
      "best: --workers {}{} ({:.0f} samples/s, {:.1f} % waiting for data; the fewest workers "
      "within {:.0f} % of "
      "the fastest, as --workers auto chooses)\n",
      best.setting.workers, best.setting.pin_memory ? " --pin-memory" : "", best.samples_per_s,
      best.data_wait_percent, 100.0 * tuning.noise);
  return trials;
}

std::vector<TrialResult> find_batch_size(TrainAppOptions base, std::ostream& out,
                                         std::int64_t start, std::int64_t limit,
                                         std::int64_t steps) try {
  // A batch is never larger than the training set (train refuses one); token windows take the
  // model's context.
  limit = std::min(limit, open_data(base.data, {.samples = base.samples,
                                                .seed = base.seed,
                                                .test_share = base.test_share,
                                                .test_data = base.test_data,
                                                .context = model_context(base.model)})
                              .train->size());
  std::vector<TrialResult> trials;
  out << fmt::format("finding the batch size on {}: doubling from {} with {} real steps each\n",
                     base.device, start, steps);
  for (std::int64_t batch = start; batch <= limit; batch *= 2) {
    base.batch_size = batch;
    trials.push_back(run_trial_or_oom(base, steps));
    if (trials.back().out_of_memory) break;
  }
  print_table(out, trials);
  std::int64_t largest = 0;
  for (const auto& t : trials)
    if (!t.out_of_memory) largest = t.batch_size;
  const TrialResult& best = fastest(trials);
  out << fmt::format(
      "largest batch that fits: {}{}; best throughput: batch {} ({:.0f} samples/s)\n", largest,
      trials.back().out_of_memory ? "" : fmt::format(" (stopped at the limit {})", limit),
      best.batch_size, best.samples_per_s);
  return trials;
} catch (...) {
  rethrow_in_flag_words();  // what the library says of the data or model, in train's flags
}

std::vector<TrialResult> loader_sweep(TrainAppOptions base, const LoaderSweep& sweep,
                                      std::ostream& out) {
  KILN_CHECK(!sweep.workers.empty() && !sweep.batch_sizes.empty(),
             "the loader sweep needs worker counts and batch sizes");
  out << fmt::format(
      "loader sweep on {}: {} per setting, {} on {}\n", base.data,
      sweep.steps > 0 ? fmt::format("{} steps", sweep.steps) : std::string("one epoch"), base.model,
      base.device);
  std::vector<TrialResult> trials;
  for (std::int64_t batch : sweep.batch_sizes) {
    for (bool pin : pin_settings(base)) {
      for (int workers : sweep.workers) {
        base.batch_size = batch;
        base.workers = workers;
        base.pin_memory = pin;
        trials.push_back(run_trial_or_oom(base, sweep.steps));
      }
    }
  }
  print_table(out, trials);
  for (std::int64_t batch : sweep.batch_sizes) {
    std::vector<TrialResult> of_batch;
    for (const auto& t : trials)
      if (t.batch_size == batch && !t.out_of_memory) of_batch.push_back(t);
    if (of_batch.empty()) continue;
    const TrialResult& best = fastest(of_batch);
    out << fmt::format(
        "batch {}: best --workers {}{} ({:.1f} s per epoch, {:.1f} % waiting for data)\n", batch,
        best.workers, best.pin_memory ? " --pin-memory" : "", best.epoch_seconds,
        best.data_wait_percent);
  }
  return trials;
}

}  // namespace kiln
