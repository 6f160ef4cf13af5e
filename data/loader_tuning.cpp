// The loader tuning of data/loader_tuning.h: candidates, one timed trial each, and the choice.
#include "kiln/data/loader_tuning.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>

#include "kiln/core/error.h"

namespace kiln {

namespace {

using Clock = std::chrono::steady_clock;

// The first `batches` batches of the loader's next epoch through the consumer, timed from the
// epoch's start (its first batch waits for the workers to start) to the consumer's last work.
LoaderTrial run_trial(DataLoader& loader, LoaderSetting setting, std::int64_t batches,
                      const LoaderConsumer& consumer) {
  const std::int64_t epoch = loader.epoch();
  loader.set_workers(setting.workers, setting.pin_memory);
  const Clock::time_point start = Clock::now();
  std::int64_t read = 0, samples = 0;
  for (const Batch& batch : loader) {
    consumer.consume(batch);
    samples += batch.x.size(0);
    if (++read == batches) break;
  }
  if (consumer.finish) consumer.finish();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const double wait_ms = loader.stats().wait_ms;
  loader.set_epoch(epoch);  // the trial only read: training starts the same epoch afresh
  return LoaderTrial{setting, static_cast<double>(samples) / std::max(seconds, 1e-9),
                     100.0 * wait_ms / std::max(seconds * 1000.0, 1e-9)};
}

std::string worker_words(int workers) {
  return fmt::format("{} worker{}", workers, workers == 1 ? "" : "s");
}

}  // namespace

std::vector<int> worker_candidates(int cores) {
  std::vector<int> counts{0};
  for (int w = 1; w < cores; w *= 2) counts.push_back(w);
  counts.push_back(std::max(cores, 1));
  return counts;
}

std::vector<LoaderSetting> loader_candidates(const LoaderTuningOptions& options,
                                             const DataLoaderOptions& current, int cores) {
  const std::vector<int> counts = !options.workers ? std::vector<int>{current.num_workers}
                                  : !options.worker_counts.empty() ? options.worker_counts
                                                                   : worker_candidates(cores);
  // Pinned slots speed up copies to a GPU; a CPU target has no copies for them to speed up.
  const std::vector<bool> pins = options.pin_memory && current.device.is_cuda()
                                     ? std::vector<bool>{false, true}
                                 : options.pin_memory ? std::vector<bool>{false}
                                                      : std::vector<bool>{current.pin_memory};
  std::vector<LoaderSetting> settings;
  for (bool pin : pins)
    for (int workers : counts) settings.push_back({workers, pin});
  return settings;
}

std::size_t choose_loader_trial(std::span<const LoaderTrial> trials, double noise) {
  KILN_CHECK(!trials.empty(), "choose_loader_trial needs at least one trial");
  double fastest = 0.0;
  for (const LoaderTrial& t : trials) fastest = std::max(fastest, t.samples_per_s);
  const double good_enough = fastest * (1.0 - noise);
  std::size_t chosen = trials.size();
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const LoaderTrial& t = trials[i];
    if (t.samples_per_s < good_enough) continue;
    const auto rank = [](const LoaderSetting& s) { return std::pair(s.workers, s.pin_memory); };
    if (chosen == trials.size() || rank(t.setting) < rank(trials[chosen].setting)) chosen = i;
  }
  return chosen;
}

LoaderTuning tune_loader(DataLoader& loader, const LoaderTuningOptions& options,
                         const LoaderConsumer& consumer, int cores) {
  KILN_CHECK(options.batches >= 1, "LoaderTuningOptions::batches must be at least 1, found {}",
             options.batches);
  KILN_CHECK(options.rounds >= 1, "LoaderTuningOptions::rounds must be at least 1, found {}",
             options.rounds);
  KILN_CHECK(options.noise >= 0.0 && options.noise < 1.0,
             "LoaderTuningOptions::noise must be in [0, 1), found {}", options.noise);
  KILN_CHECK(consumer.consume != nullptr, "tune_loader needs a LoaderConsumer::consume");
  for (int w : options.worker_counts)
    KILN_CHECK(w >= 0 && w <= kMaxLoaderWorkers,
               "LoaderTuningOptions::worker_counts must be in [0, {}], found {}", kMaxLoaderWorkers,
               w);
  const std::vector<LoaderSetting> candidates = loader_candidates(options, loader.options(), cores);
  LoaderTuning tuning;
  tuning.batches = std::min(options.batches, loader.batches_per_epoch());
  tuning.rounds = options.rounds;
  tuning.noise = options.noise;
  for (const LoaderSetting& setting : candidates) tuning.trials.push_back({setting, 0.0, 0.0});
  for (int round = 0; round < options.rounds; ++round)
    for (LoaderTrial& best : tuning.trials) {
      const LoaderTrial trial = run_trial(loader, best.setting, tuning.batches, consumer);
      if (trial.samples_per_s > best.samples_per_s) best = trial;
    }
  tuning.chosen = tuning.trials[choose_loader_trial(tuning.trials, options.noise)];
  loader.set_workers(tuning.chosen.setting.workers, tuning.chosen.setting.pin_memory);
  return tuning;
}

std::string describe(const LoaderTuning& tuning) {
  const bool pins_tried = std::any_of(tuning.trials.begin(), tuning.trials.end(),
                                      [](const LoaderTrial& t) { return t.setting.pin_memory; });
  std::vector<std::string> rates;
  for (const LoaderTrial& t : tuning.trials)
    rates.push_back(fmt::format("{}{} {:.0f}", worker_words(t.setting.workers),
                                pins_tried ? (t.setting.pin_memory ? " pinned" : " unpinned") : "",
                                t.samples_per_s));
  return fmt::format(
      "{}, {} (samples/s, the best of {} tries of {} batches each; the fewest workers within "
      "{:.0f} % of the "
      "fastest: {})",
      worker_words(tuning.chosen.setting.workers),
      tuning.chosen.setting.pin_memory ? "pinned" : "unpinned", tuning.rounds, tuning.batches,
      100.0 * tuning.noise, fmt::join(rates, ", "));
}

}  // namespace kiln
