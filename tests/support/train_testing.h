// The short, quiet training run the trainer, data-parallel, graph and NCCL tests start from: an MLP
// on the generated article set with a constant learning rate (so a run of fewer epochs is a prefix
// of a longer one). Each test then sets what it is about: lr, workers, device, checkpoints.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "apps/train/train_options.h"

namespace kiln::testing {

inline TrainAppOptions small_article_run(const std::string& model, std::int64_t samples,
                                         std::int64_t batch_size, std::int64_t epochs = 2) {
  TrainAppOptions o;
  o.model = model;
  o.data = "article";
  o.samples = samples;
  o.epochs = epochs;
  o.batch_size = batch_size;
  o.schedule = "constant";
  o.quiet = true;
  return o;
}

// An empty checkpoint folder path under gtest's TempDir, "kiln_run_<name>" (removed if present).
inline std::string fresh_checkpoint_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "kiln_run_" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace kiln::testing
