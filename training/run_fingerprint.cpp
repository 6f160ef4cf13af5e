// describe_structure and run_fingerprint (training/run_fingerprint.h).
#include "kiln/training/run_fingerprint.h"

#include <fmt/format.h>

#include "kiln/layers/module.h"

namespace kiln {

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string describe_structure(const Module& model) {
  std::string out;
  auto add = [&out](const std::string& name, const Tensor& value) {
    out += fmt::format("{}{} {}", out.empty() ? "" : "; ", name, value.shape().str());
  };
  for (const Parameter* p : model.parameters()) add(p->name, p->value);
  for (const Buffer* b : model.buffers()) add(b->name, b->value);
  return out;
}

std::uint64_t run_fingerprint(const RunDescription& run, const std::string& model_structure,
                              const std::map<std::string, std::string>& settings) {
  std::string text = fmt::format("{}|{}|{}|{}|{}|{}", run.model, model_structure, run.data,
                                 run.optimizer, run.seed, run.batch_size);
  for (const auto& [name, value] : settings) text += fmt::format("|{}={}", name, value);
  return fnv1a(text);
}

}  // namespace kiln
