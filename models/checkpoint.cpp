// Checkpoint folders over safetensors and a small JSON state file.
#include "kiln/models/checkpoint.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "kiln/core/ops.h"
#include "kiln/models/safetensors.h"

namespace kiln {

namespace fs = std::filesystem;

namespace {

nlohmann::json to_json(const TrainingState& s) {
  return {{"epoch", s.epoch},       {"batches_done", s.batches_done}, {"global_step", s.global_step},
          {"seed", s.seed},         {"generator_offset", s.generator_offset},
          {"model", s.model},       {"data", s.data},
          {"batch_size", s.batch_size}, {"optimizer", s.optimizer},   {"format", "kiln-checkpoint-1"}};
}

TrainingState from_json(const nlohmann::json& j) {
  TrainingState s;
  s.epoch = j.at("epoch");
  s.batches_done = j.at("batches_done");
  s.global_step = j.at("global_step");
  s.seed = j.at("seed");
  s.generator_offset = j.at("generator_offset");
  s.model = j.at("model");
  s.data = j.at("data");
  s.batch_size = j.at("batch_size");
  s.optimizer = j.at("optimizer");
  return s;
}

// Copies `tensors` into `targets` by name; both sides must match exactly.
void copy_by_name(const std::string& file, const std::map<std::string, Tensor>& tensors,
                  const std::map<std::string, Tensor*>& targets) {
  for (const auto& [name, target] : targets) {
    auto it = tensors.find(name);
    KILN_CHECK(it != tensors.end(), "'{}' has no tensor '{}' that the model needs", file, name);
    KILN_CHECK(it->second.shape() == target->shape() && it->second.dtype() == target->dtype(),
               "'{}': tensor '{}' is {} but the model's is {}", file, name, it->second.str(), target->str());
  }
  for (const auto& [name, tensor] : tensors)
    KILN_CHECK(targets.count(name) == 1, "'{}' holds tensor '{}' that this model does not have; is it "
               "a file for another model?", file, name);
  for (const auto& [name, target] : targets) copy(tensors.at(name), *target);
}

// Parameters and buffers (BatchNorm's running statistics) by name: what model.safetensors holds.
// The values are about to be written, so the parameters' bf16 copies are reset.
std::map<std::string, Tensor*> weight_targets(Module& model) {
  invalidate_bf16_copies(model);
  std::map<std::string, Tensor*> targets;
  for (Parameter* p : model.parameters()) targets[p->name] = &p->value;
  for (Buffer* b : model.buffers()) targets[b->name] = &b->value;
  return targets;
}

}  // namespace

void save_checkpoint(const std::string& dir, const Module& model, const Optimizer& optimizer,
                     const TrainingState& state) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  KILN_CHECK(!ec, "cannot create checkpoint folder '{}': {}", dir, ec.message());
  std::vector<std::pair<std::string, Tensor>> weights;
  for (const Parameter* p : model.parameters()) weights.emplace_back(p->name, p->value);
  for (const Buffer* b : model.buffers()) weights.emplace_back(b->name, b->value);
  save_safetensors(dir + "/model.safetensors", weights, {{"format", "pt"}, {"model", state.model}});
  const std::map<std::string, Tensor> moments = optimizer.state();
  const std::vector<std::pair<std::string, Tensor>> optimizer_state(moments.begin(), moments.end());
  save_safetensors(dir + "/optimizer.safetensors", optimizer_state, {{"optimizer", optimizer.describe()}});
  nlohmann::json j = to_json(state);
  j["optimizer_steps"] = optimizer.steps();
  write_file_atomically(dir + "/state.json", j.dump(2) + "\n");
}

std::optional<TrainingState> load_checkpoint(const std::string& dir, Module& model, Optimizer& optimizer) {
  const std::string state_path = dir + "/state.json";
  if (!fs::exists(state_path)) return std::nullopt;
  nlohmann::json j;
  try {
    std::ifstream in(state_path);
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    KILN_THROW("'{}' is not a readable checkpoint state: {}", state_path, e.what());
  }
  TrainingState state;
  std::int64_t optimizer_steps = 0;
  try {
    state = from_json(j);
    optimizer_steps = j.at("optimizer_steps");
  } catch (const nlohmann::json::exception& e) {
    KILN_THROW("'{}' lacks a field of a kiln checkpoint: {}", state_path, e.what());
  }
  const SafetensorsFile weights = load_safetensors(dir + "/model.safetensors");
  copy_by_name(dir + "/model.safetensors", weights.tensors, weight_targets(model));
  const SafetensorsFile moments = load_safetensors(dir + "/optimizer.safetensors");
  std::map<std::string, Tensor> on_device;
  for (const auto& [name, t] : moments.tensors) on_device[name] = t.to(model.device());
  optimizer.load_state(on_device, optimizer_steps);
  return state;
}

void load_weights(const std::string& path, Module& model) {
  const SafetensorsFile file = load_safetensors(path);
  copy_by_name(path, file.tensors, weight_targets(model));
}

}  // namespace kiln
