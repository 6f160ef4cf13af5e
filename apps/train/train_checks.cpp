// Checks before training (training/train_checks.h).
#include "apps/train/train_checks.h"

#include "apps/train/weight_decay_groups.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "apps/train/workers_flag.h"
#include "kiln/core/error.h"
#include "kiln/core/host_memory.h"
#include "kiln/data/data_loader.h"
#include "kiln/distributed/rank_agreement.h"
#include "kiln/layers/loss.h"
#include "kiln/spec/data_spec.h"
#include "kiln/spec/optimizer_spec.h"

namespace kiln {

namespace {

// The momentum SGD runs with: --momentum, or the optimizer's default.
float train_momentum(const TrainAppOptions& o) {
  OptimizerSettings settings;
  settings.momentum = o.momentum;
  return effective_momentum(o.optimizer, settings);
}

}  // namespace

// The batch must come from the data, and the loader's host slots must fit in memory.
void check_batch_fits(const TrainAppOptions& o, const Dataset& train, int world) {
  KILN_CHECK(o.batch_size <= train.size(),
             "--batch-size {} is more than the {} training samples of {}: use at most {}",
             o.batch_size, train.size(), train.describe(), train.size());
  const double slots = static_cast<double>(most_workers(o)) * DataLoaderOptions{}.prefetch + 1;
  // Features and targets: an int32 label, or the float values of a regression target.
  const std::int64_t target_values = train.has_class_labels() ? 1 : train.target_shape().numel();
  const double batch_bytes = static_cast<double>(o.batch_size / world) *
                             static_cast<double>(train.sample_shape().numel() + target_values) *
                             4.0;
  const auto memory = static_cast<double>(host_memory_bytes());
  KILN_CHECK(memory <= 0 || slots * batch_bytes < memory,
             "--batch-size {} with --workers {} needs {:.1f} GiB of host batch slots ({:.0f} "
             "batches of {:.1f} MiB), more than this machine's {:.1f} GiB: lower --batch-size or "
             "--workers",
             o.batch_size, most_workers(o), slots * batch_bytes / 1073741824.0, slots,
             batch_bytes / 1048576.0, memory / 1073741824.0);
}

RunDescription run_description(const TrainAppOptions& o) {
  RunDescription run;
  run.model = o.model;
  run.data = o.data;
  run.optimizer = o.optimizer;
  run.seed = o.seed;
  run.batch_size = o.batch_size;
  run.samples = o.samples;
  run.lr = o.lr;
  run.weight_decay = effective_weight_decay(o);
  run.weight_decay_groups = weight_decay_groups_name(o);
  run.clip_grad_norm = o.clip_grad_norm;
  if (o.optimizer == "adam" || o.optimizer == "adamw") {
    run.beta1 = o.beta1;
    run.beta2 = o.beta2;
    run.eps = o.eps;
  } else {
    run.momentum = train_momentum(o);
    run.nesterov = o.nesterov || o.optimizer == "nesterov";
  }
  run.schedule = o.schedule;
  run.loss = canonical_loss_name(o.loss);
  run.shuffle = o.shuffle;
  run.test_share = o.test_share.value_or(kDefaultTestShare);
  run.test_data = o.test_data;
  return run;
}

std::map<std::string, std::string> legacy_run_settings(const TrainAppOptions& o) {
  std::map<std::string, std::string> settings{
      {"--model", o.model},
      {"--data", o.data},
      {"--samples", std::to_string(o.samples)},
      {"--batch-size", std::to_string(o.batch_size)},
      {"--optimizer", o.optimizer},
      {"--lr", fmt::format("{}", o.lr)},
      {"--weight-decay", fmt::format("{}", effective_weight_decay(o))},
      {"--schedule", o.schedule},
      {"--seed", std::to_string(o.seed)},
      {"--no-shuffle", o.shuffle ? "off" : "on"},
      {"--loss", canonical_loss_name(o.loss)},
      {"--test-share", fmt::format("{}", o.test_share.value_or(kDefaultTestShare))},
      {"--test-data", o.test_data}};
  if (o.optimizer == "adam" || o.optimizer == "adamw") {
    settings["--beta1"] = fmt::format("{}", o.beta1);
    settings["--beta2"] = fmt::format("{}", o.beta2);
    settings["--eps"] = fmt::format("{}", o.eps);
  } else {
    settings["--momentum"] = fmt::format("{}", train_momentum(o));
    settings["--nesterov"] = o.nesterov || o.optimizer == "nesterov" ? "on" : "off";
  }
  return settings;
}

void check_same_options_on_every_rank(const TrainAppOptions& o, Communicator& comm) {
  check_ranks_agree({{"--epochs", std::to_string(o.epochs)},
                     {"--resume", o.resume ? "on" : "off"},
                     {"--init", o.init},
                     {"TrainAppOptions::evaluate", o.evaluate ? "on" : "off"}},
                    comm,
                    fmt::format("the ranks of this job ({}) were started with different options",
                                comm.describe()),
                    "start every rank with the same command line");
}

}  // namespace kiln
