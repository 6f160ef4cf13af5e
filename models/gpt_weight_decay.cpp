// gpt_weight_decay_groups (models/gpt_weight_decay.h): decided by rank and by identity (the two
// embedding tables), not by name, so a renamed or re-nested parameter cannot slip into a group.
#include "kiln/models/gpt_weight_decay.h"

namespace kiln {

std::function<bool(const Parameter&)> gpt_weight_decay_groups(const Gpt& model) {
  const Parameter* wte = &model.wte().weight();
  const Parameter* wpe = &model.wpe().weight();
  return [wte, wpe](const Parameter& p) { return p.value.rank() >= 2 && &p != wte && &p != wpe; };
}

}  // namespace kiln
