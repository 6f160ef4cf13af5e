// Checks before training (training/train_checks.h). Older checkpoints record only model, data,
// batch size and optimizer; those four are compared for every checkpoint.
#include "kiln/training/train_checks.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/core/host_memory.h"
#include "kiln/data/data_loader.h"

namespace kiln {

// Every output is created or opened before any work, so a bad path never costs an epoch.
std::unique_ptr<CheckpointFolder> open_outputs(const TrainOptions& o) {
  if (!o.log_json.empty()) {
    std::ofstream log(o.log_json, std::ios::app);
    KILN_CHECK(log.good(),
               "cannot open --log-json file '{}' for appending: {} (does its folder exist?)",
               o.log_json, std::strerror(errno));
  }
  if (o.checkpoint_dir.empty()) return nullptr;
  return std::make_unique<CheckpointFolder>(o.checkpoint_dir, o.keep_checkpoints);
}

// The batch must come from the data, and the loader's host slots must fit in memory.
void check_batch_fits(const TrainOptions& o, const Dataset& train, int world) {
  KILN_CHECK(o.batch_size <= train.size(),
             "--batch-size {} is more than the {} training samples of {}: use at most {}",
             o.batch_size, train.size(), train.describe(), train.size());
  const double slots = static_cast<double>(o.workers) * DataLoaderOptions{}.prefetch + 1;
  const double batch_bytes = static_cast<double>(o.batch_size / world) *
                             static_cast<double>(train.sample_shape().numel()) * sizeof(float);
  const auto memory = static_cast<double>(host_memory_bytes());
  KILN_CHECK(memory <= 0 || slots * batch_bytes < memory,
             "--batch-size {} with --workers {} needs {:.1f} GiB of host batch slots ({:.0f} "
             "batches of {:.1f} MiB), more than this machine's {:.1f} GiB: lower --batch-size or "
             "--workers",
             o.batch_size, o.workers, slots * batch_bytes / 1073741824.0, slots,
             batch_bytes / 1048576.0, memory / 1073741824.0);
}

// The flags that change the numbers of a run, as recorded in a checkpoint and compared on resume.
std::map<std::string, std::string> run_settings(const TrainOptions& o) {
  return {{"--model", o.model},
          {"--data", o.data},
          {"--samples", std::to_string(o.samples)},
          {"--batch-size", std::to_string(o.batch_size)},
          {"--optimizer", o.optimizer},
          {"--lr", fmt::format("{}", o.lr)},
          {"--weight-decay", fmt::format("{}", o.weight_decay)},
          {"--schedule", o.schedule},
          {"--seed", std::to_string(o.seed)},
          {"--no-shuffle", o.shuffle ? "off" : "on"}};
}

// Refuses a checkpoint made with other settings, listing every one that differs.
void check_resumable(const TrainOptions& o, const TrainingState& saved) {
  std::map<std::string, std::string> recorded = saved.settings;  // empty in older checkpoints
  recorded.insert({{"--model", saved.model},
                   {"--data", saved.data},
                   {"--batch-size", std::to_string(saved.batch_size)},
                   {"--optimizer", saved.optimizer}});
  std::vector<std::string> differences;
  for (const auto& [flag, now] : run_settings(o)) {
    const auto it = recorded.find(flag);
    if (it != recorded.end() && it->second != now)
      differences.push_back(fmt::format("{} {} (this run: {})", flag, it->second, now));
  }
  KILN_CHECK(differences.empty(),
             "the checkpoint in '{}' was made with {}; resume with the checkpoint's settings, or "
             "start fresh in another --checkpoint folder",
             o.checkpoint_dir, fmt::join(differences, ", "));
}

}  // namespace kiln
