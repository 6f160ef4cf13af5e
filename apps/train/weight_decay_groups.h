// train's weight decay for GPT recipes. --weight-decay unset is nanoGPT's 0.1 for a gpt: model
// under adamw, else 0 (as before). A gpt: model under adam or adamw decays only its matrices
// (models/gpt_weight_decay.h: no decay on biases, LayerNorms and embeddings) unless
// --no-weight-decay-groups (TrainAppOptions::weight_decay_groups false) decays every parameter.
#pragma once

#include <functional>
#include <string>

#include "apps/train/train_options.h"
#include "kiln/layers/module.h"
#include "kiln/optim/optimizer.h"

namespace kiln {

float effective_weight_decay(const TrainAppOptions& o);
// AdamOptions::decays for this run's model `net`, or empty (every parameter decays).
std::function<bool(const Parameter&)> weight_decay_groups(const TrainAppOptions& o,
                                                          const Module& net);
// What the run's record says of the groups (RunDescription::weight_decay_groups): "matrices"
// where weight_decay_groups applies, else "all".
std::string weight_decay_groups_name(const TrainAppOptions& o);
// The header line ("  weight decay 0.1 on 16 matrices, 0 on 36 others (biases, LayerNorms,
// embeddings)"), or "" for a run without weight decay and groups.
std::string weight_decay_line(const TrainAppOptions& o, const Optimizer& optimizer);

}  // namespace kiln
