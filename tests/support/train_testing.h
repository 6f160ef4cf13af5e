// The short, quiet training run the trainer, data-parallel and NCCL tests start from: an MLP on
// the generated article set with a constant learning rate (so a run of fewer epochs is a prefix
// of a longer one). Each test then sets what it is about: lr, workers, device, checkpoints.
#pragma once

#include <cstdint>
#include <string>

#include "kiln/models/trainer.h"

namespace kiln::testing {

inline TrainOptions small_article_run(const std::string& model, std::int64_t samples,
                                      std::int64_t batch_size, std::int64_t epochs = 2) {
  TrainOptions o;
  o.model = model;
  o.data = "article";
  o.samples = samples;
  o.epochs = epochs;
  o.batch_size = batch_size;
  o.schedule = "constant";
  o.quiet = true;
  return o;
}

}  // namespace kiln::testing
