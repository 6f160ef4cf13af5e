// train's weight-decay defaults and groups (apps/train/weight_decay_groups.h).
#include "apps/train/weight_decay_groups.h"

#include <fmt/format.h>

#include "kiln/models/gpt.h"
#include "kiln/models/gpt_weight_decay.h"
#include "kiln/optim/adam.h"
#include "kiln/spec/model_spec.h"

namespace kiln {

namespace {

bool is_gpt(const TrainAppOptions& o) { return is_gpt_spec(o.model); }
bool is_adam(const TrainAppOptions& o) { return o.optimizer == "adam" || o.optimizer == "adamw"; }
bool groups_apply(const TrainAppOptions& o) {
  return o.weight_decay_groups && is_gpt(o) && is_adam(o);
}

}  // namespace

float effective_weight_decay(const TrainAppOptions& o) {
  constexpr float kNanoGptWeightDecay = 0.1f;  // nanoGPT's train.py default
  if (o.weight_decay) return *o.weight_decay;
  return is_gpt(o) && o.optimizer == "adamw" ? kNanoGptWeightDecay : 0.0f;
}

std::string weight_decay_groups_name(const TrainAppOptions& o) {
  return groups_apply(o) ? "matrices" : "all";
}

std::function<bool(const Parameter&)> weight_decay_groups(const TrainAppOptions& o,
                                                          const Module& net) {
  if (!groups_apply(o)) return {};
  const auto* gpt = dynamic_cast<const Gpt*>(&net);
  KILN_CHECK(gpt != nullptr, "--model {} built a {}, not a GPT; its weight-decay groups need one",
             o.model, net.describe());
  return gpt_weight_decay_groups(*gpt);
}

std::string weight_decay_line(const TrainAppOptions& o, const Optimizer& optimizer) {
  const float decay = effective_weight_decay(o);
  const auto* adam = dynamic_cast<const Adam*>(&optimizer);
  const std::size_t all = optimizer.parameters().size();
  if (adam != nullptr && adam->options().decays) {
    const std::size_t decayed = adam->decayed_count();
    return fmt::format(
        "  weight decay {} on {} matrices, 0 on {} others (biases, LayerNorms, "
        "embeddings)\n",
        decay, decayed, all - decayed);
  }
  if (decay == 0.0f) return "";
  return fmt::format("  weight decay {} on every parameter ({})\n", decay, all);
}

}  // namespace kiln
