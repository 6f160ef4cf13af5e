// Checkpoint units over safetensors and state.json. The CRC32 (zlib's) of each piece goes into
// state.json, which is written last inside the unit: a piece from any other save does not match.
#include "kiln/checkpoint/checkpoint.h"

#include <cmath>

#include <zlib.h>

#include "kiln/checkpoint/hugging_face_gpt2.h"
#include "kiln/core/excerpt.h"
#include "kiln/core/ops.h"
#include "kiln/core/random.h"
#include "kiln/io/durable_file.h"
#include "kiln/io/safetensors.h"

namespace kiln {

namespace {

constexpr const char* kWeights = "model.safetensors";
constexpr const char* kMoments = "optimizer.safetensors";
constexpr const char* kState = "state.json";

CheckpointPiece piece_of(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  for (std::size_t done = 0; done < bytes.size();) {  // crc32 takes at most 4 GiB at a time
    const auto n = static_cast<uInt>(std::min<std::size_t>(bytes.size() - done, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + done), n);
    done += n;
  }
  return {bytes.size(), static_cast<std::uint32_t>(crc)};
}

// The bytes of one piece of `saved`, checked against what its state.json records.
std::string read_piece(const SavedCheckpoint& saved, const char* name) {
  const std::string path = saved.folder + "/" + name;
  std::string bytes = read_whole_file(path);
  if (saved.state.pieces.empty()) return bytes;  // the first layout recorded nothing
  const auto it = saved.state.pieces.find(name);
  KILN_CHECK(it != saved.state.pieces.end(), "'{}/{}' does not record the piece {}", saved.folder,
             kState, name);
  const CheckpointPiece found = piece_of(bytes);
  KILN_CHECK(found == it->second,
             "'{}' does not belong to its checkpoint: {} bytes with CRC32 {:08x}, but {} records "
             "{} bytes with CRC32 {:08x}; it was changed or mixed with another save: resume from "
             "an older ckpt-N folder (point 'latest' at it) or start fresh",
             path, found.bytes, found.crc32, kState, it->second.bytes, it->second.crc32);
  return bytes;
}

// A NaN or inf in a file's weights would train to a NaN loss whose message blames the learning
// rate or the data: named here, with the file and the tensor.
void check_finite(const std::string& file, const std::string& name, const Tensor& tensor) {
  if (tensor.dtype() != DType::f32) return;
  const std::vector<float> v = tensor.to_vector<float>();
  const auto n = static_cast<std::int64_t>(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    KILN_CHECK(std::isfinite(v[i]),
               "'{}': tensor '{}' holds {} at element {} of {}: the file's weights are not "
               "numbers there (saved by a run that diverged?); use another file",
               file, name, v[i], i, n);
}

// Copies `tensors` into `targets` by name; both sides must match exactly.
void copy_by_name(const std::string& file, const std::map<std::string, Tensor>& tensors,
                  const std::map<std::string, Tensor*>& targets) {
  for (const auto& [name, target] : targets) {
    auto it = tensors.find(name);
    KILN_CHECK(it != tensors.end(), "'{}' has no tensor '{}' that the model needs", file, name);
    KILN_CHECK(it->second.shape() == target->shape() && it->second.dtype() == target->dtype(),
               "'{}': tensor '{}' is {} but the model's is {}", file, name, it->second.str(),
               target->str());
  }
  for (const auto& [name, tensor] : tensors)
    KILN_CHECK(targets.count(name) == 1,
               "'{}' holds tensor {} that this model does not have; is it "
               "a file for another model?",
               file, excerpt(name));
  for (const auto& [name, target] : targets) {
    check_finite(file, name, tensors.at(name));
    copy(tensors.at(name), *target);
  }
}

// Parameters and buffers (BatchNorm's running statistics) by name: what model.safetensors holds.
// The values are about to be written, so the parameters' extensions drop their copies of them.
std::map<std::string, Tensor*> weight_targets(Module& model) {
  parameter_values_changed(model);
  std::map<std::string, Tensor*> targets;
  for (Parameter* p : model.parameters()) targets[p->name] = &p->value;
  for (Buffer* b : model.buffers()) targets[b->name] = &b->value;
  return targets;
}

}  // namespace

void save_checkpoint(CheckpointFolder& folder, Module& model, const Optimizer& optimizer,
                     TrainingState state) {
  std::vector<std::pair<std::string, Tensor>> weights;
  for (const Parameter* p : model.parameters()) weights.emplace_back(p->name, p->value);
  for (const Buffer* b : model.buffers()) weights.emplace_back(b->name, b->value);
  const std::map<std::string, Tensor> moments = optimizer.state();
  const std::vector<std::pair<std::string, Tensor>> optimizer_state(moments.begin(), moments.end());
  std::vector<std::pair<std::string, std::string>> pieces;
  pieces.emplace_back(kWeights,
                      serialize_safetensors(weights, {{"format", "pt"}, {"model", state.model}}));
  pieces.emplace_back(
      kMoments, serialize_safetensors(optimizer_state, {{"optimizer", optimizer.describe()}}));
  state.optimizer_steps = optimizer.steps();
  state.generators.clear();
  for (const auto& [name, gen] : model.generators())
    state.generators[name] = {gen->seed(), gen->offset()};
  state.pieces.clear();
  for (const auto& [name, bytes] : pieces) state.pieces[name] = piece_of(bytes);
  pieces.emplace_back(kState, state_to_json(state));
  folder.publish(pieces);
}

std::optional<SavedCheckpoint> read_checkpoint(const std::string& dir) {
  const std::optional<std::string> folder = find_checkpoint(dir);
  if (!folder) return std::nullopt;
  const std::string path = *folder + "/" + kState;
  return SavedCheckpoint{*folder, parse_training_state(read_whole_file(path), path)};
}

namespace {

// The generators' positions by name. A checkpoint from before kiln recorded them names none and
// leaves the model's as they are; one naming a generator this model lacks is of another model.
void restore_generators(const SavedCheckpoint& saved, Module& model) {
  const std::string path = saved.folder + "/" + kState;
  std::map<std::string, Generator*> targets;
  for (const auto& [name, gen] : model.generators()) targets[name] = gen;
  for (const auto& [name, g] : saved.state.generators) {
    const auto it = targets.find(name);
    KILN_CHECK(it != targets.end(),
               "'{}' records the random generator {}, which this model does not have: "
               "the checkpoint is of another model",
               path, excerpt(name));
    it->second->set_state(g.seed, g.offset);
  }
}

}  // namespace

void restore_checkpoint(const SavedCheckpoint& saved, Module& model, Optimizer& optimizer) {
  const std::string weights_path = saved.folder + "/" + kWeights;
  const SafetensorsFile weights = parse_safetensors(read_piece(saved, kWeights), weights_path);
  copy_by_name(weights_path, weights.tensors, weight_targets(model));
  const std::string moments_path = saved.folder + "/" + kMoments;
  const SafetensorsFile moments = parse_safetensors(read_piece(saved, kMoments), moments_path);
  restore_generators(saved, model);
  std::map<std::string, Tensor> on_device;
  for (const auto& [name, t] : moments.tensors) on_device[name] = t.to(model.device());
  try {
    optimizer.load_state(on_device, saved.state.optimizer_steps);
  } catch (const Error& e) {  // the optimizer's message names the tensor; this names the file
    KILN_THROW("'{}': {}", moments_path, e.text());
  }
}

void load_checkpoint_weights(const std::string& dir, Module& model) {
  const std::optional<SavedCheckpoint> saved = read_checkpoint(dir);
  KILN_CHECK(
      saved.has_value(),
      "'{}' holds no checkpoint (no latest, no state.json): train with a checkpoint folder first",
      dir);
  const std::string path = saved->folder + "/" + kWeights;
  const SafetensorsFile weights = parse_safetensors(read_piece(*saved, kWeights), path);
  copy_by_name(path, weights.tensors, weight_targets(model));
}

void load_weights(const std::string& path, Module& model) {
  SafetensorsFile file = load_safetensors(path);
  const std::map<std::string, Tensor*> targets = weight_targets(model);
  if (is_hugging_face_gpt2(file.tensors)) {
    const auto wte = targets.find("transformer.wte.weight");
    const std::int64_t rows =
        wte != targets.end() && wte->second->rank() == 2 ? wte->second->size(0) : 0;
    file.tensors = from_hugging_face_gpt2(path, std::move(file.tensors), rows);
  }
  copy_by_name(path, file.tensors, targets);
}

}  // namespace kiln
