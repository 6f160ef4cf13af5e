// describe_structure and the fields of a run's record (checkpoint/run_fingerprint.h).
#include "kiln/checkpoint/run_fingerprint.h"

#include <fmt/format.h>

#include "kiln/layers/module.h"

namespace kiln {

namespace {

// A field as text; nothing where it is not recorded.
std::optional<std::string> text(const std::string& v) {
  return v.empty() ? std::nullopt : std::optional<std::string>(v);
}
std::optional<std::string> text(std::int64_t batch_size) {
  return batch_size > 0 ? std::optional<std::string>(std::to_string(batch_size)) : std::nullopt;
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
  std::vector<RunField> fields;
  visit_run_fields(r, [&fields](const char*, Setting setting, const auto& value) {
    fields.push_back({setting, text(value)});
  });
  return fields;
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
