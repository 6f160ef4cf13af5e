// describe_structure and the fields of a run's record (checkpoint/run_fingerprint.h).
#include "kiln/checkpoint/run_fingerprint.h"

#include <fmt/format.h>

#include "kiln/layers/module.h"

namespace kiln {

namespace {

std::optional<std::string> text(const std::string& v) {
  return v.empty() ? std::nullopt : std::optional<std::string>(v);
}
template <typename T> std::optional<std::string> text(const std::optional<T>& v) {
  if (!v) return std::nullopt;
  if constexpr (std::is_same_v<T, bool>) return *v ? "on" : "off";
  else return fmt::format("{}", *v);
}

}  // namespace

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

std::vector<RunField> description_fields(const RunDescription& r) {
  const std::optional<std::string> batch =
      r.batch_size > 0 ? std::optional<std::string>(std::to_string(r.batch_size)) : std::nullopt;
  return {{"TrainerOptions::run.batch_size", batch},
          {"TrainerOptions::run.beta1", text(r.beta1)},
          {"TrainerOptions::run.beta2", text(r.beta2)},
          {"TrainerOptions::clip_grad_norm", text(r.clip_grad_norm)},
          {"TrainerOptions::run.data", text(r.data)},
          {"TrainerOptions::run.eps", text(r.eps)},
          {"TrainerOptions::run.loss", text(r.loss)},
          {"TrainerOptions::run.lr", text(r.lr)},
          {"TrainerOptions::run.model", text(r.model)},
          {"TrainerOptions::run.momentum", text(r.momentum)},
          {"TrainerOptions::run.nesterov", text(r.nesterov)},
          {"TrainerOptions::run.shuffle", text(r.shuffle)},
          {"TrainerOptions::run.optimizer", text(r.optimizer)},
          {"TrainerOptions::run.samples", text(r.samples)},
          {"TrainerOptions::run.schedule", text(r.schedule)},
          {"TrainerOptions::run.seed", text(r.seed)},
          {"TrainerOptions::run.test_data", r.test_data},
          {"TrainerOptions::run.test_share", text(r.test_share)},
          {"TrainerOptions::run.weight_decay", text(r.weight_decay)},
          {"TrainerOptions::run.weight_decay_groups", text(r.weight_decay_groups)}};
}

std::vector<RunField> fingerprint_fields(const RunFingerprint& f) {
  std::vector<RunField> fields = description_fields(f.run);
  fields.push_back({"the model's structure", fmt::format("fnv1a {:016x}", fnv1a(f.model_structure))});
  fields.push_back({"TrainerOptions::precision", f.precision});
  fields.push_back({"TrainerOptions::bucket_mb", fmt::format("{}", f.bucket_mb)});
  fields.push_back({"TrainerOptions::cuda_graph", f.cuda_graph ? "on" : "off"});
  fields.push_back({"TrainerOptions::max_steps", std::to_string(f.max_steps)});
  return fields;
}

}  // namespace kiln
