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
  if constexpr (std::is_same_v<T, bool>)
    return *v ? "on" : "off";
  else
    return fmt::format("{}", *v);
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
  return {{Setting::run_batch_size, batch},
          {Setting::run_beta1, text(r.beta1)},
          {Setting::run_beta2, text(r.beta2)},
          {Setting::clip_grad_norm, text(r.clip_grad_norm)},
          {Setting::run_data, text(r.data)},
          {Setting::run_eps, text(r.eps)},
          {Setting::run_loss, text(r.loss)},
          {Setting::run_lr, text(r.lr)},
          {Setting::run_model, text(r.model)},
          {Setting::run_momentum, text(r.momentum)},
          {Setting::run_nesterov, text(r.nesterov)},
          {Setting::run_shuffle, text(r.shuffle)},
          {Setting::run_optimizer, text(r.optimizer)},
          {Setting::run_samples, text(r.samples)},
          {Setting::run_schedule, text(r.schedule)},
          {Setting::run_seed, text(r.seed)},
          {Setting::run_test_data, r.test_data},
          {Setting::run_test_share, text(r.test_share)},
          {Setting::run_weight_decay, text(r.weight_decay)},
          {Setting::run_weight_decay_groups, text(r.weight_decay_groups)}};
}

std::vector<RunField> fingerprint_fields(const RunFingerprint& f) {
  std::vector<RunField> fields = description_fields(f.run);
  fields.push_back(
      {Setting::model_structure, fmt::format("fnv1a {:016x}", fnv1a(f.model_structure))});
  fields.push_back({Setting::precision, f.precision});
  fields.push_back({Setting::bucket_mb, fmt::format("{}", f.bucket_mb)});
  fields.push_back({Setting::cuda_graph, f.cuda_graph ? "on" : "off"});
  fields.push_back({Setting::max_steps, std::to_string(f.max_steps)});
  return fields;
}

}  // namespace kiln
