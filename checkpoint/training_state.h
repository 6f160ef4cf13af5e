// TrainingState: what state.json of a checkpoint holds besides the tensors: where training
// stands, the settings it was started with (checked on resume) and the size and CRC32 of each
// piece of the checkpoint, so that resume can prove the pieces were written together.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "kiln/checkpoint/run_fingerprint.h"
#include "kiln/data/vocabulary.h"

namespace kiln {

struct CheckpointPiece {
  std::uint64_t bytes = 0;
  std::uint32_t crc32 = 0;
  friend bool operator==(const CheckpointPiece&, const CheckpointPiece&) = default;
};

// A random generator's position (core/random.h): its seed and the next counter.
struct GeneratorState {
  std::uint64_t seed = 0;
  std::uint64_t offset = 0;
  friend bool operator==(const GeneratorState&, const GeneratorState&) = default;
};

struct TrainingState {
  std::int64_t epoch = 0;         // epochs completed
  std::int64_t batches_done = 0;  // batches of epoch `epoch` already trained (an interrupted epoch)
  std::int64_t global_step = 0;   // training steps so far
  std::int64_t optimizer_steps = 0;
  std::uint64_t seed = 0;
  std::uint64_t generator_offset = 0;  // the training Generator's counter (dropout masks)
  std::string model;                   // the model spec (RunDescription::model), checked on resume
  // The model's parameters and buffers with their shapes (describe_structure); empty in
  // checkpoints written before kiln recorded it. Checked on resume of a model without a spec.
  std::string model_structure;
  std::string data;  // the data spec (RunDescription::data), checked on resume
  std::int64_t batch_size = 0;
  std::string optimizer;
  // What the run was (TrainerOptions::run), compared field by field on resume: state.json's
  // "run", typed. Unset in checkpoints written before kiln-checkpoint-3.
  RunDescription run;
  // kiln-checkpoint-2's record of the same, keyed by the caller's names (train used its flags):
  // read so that such checkpoints still resume (compared with TrainerOptions::legacy_settings),
  // never written.
  // Empty in checkpoints written before kiln recorded settings and in later formats.
  std::map<std::string, std::string> legacy_settings;
  // Module::generators() by path ("layers.11.mask"); empty in checkpoints written before kiln
  // recorded them (a resumed run's dropout masks then restart).
  std::map<std::string, GeneratorState> generators;
  // File name -> size and CRC32; empty in checkpoints of the first layout (one folder, no units).
  std::map<std::string, CheckpointPiece> pieces;
  // How the data's token ids map to text (TrainerOptions::vocabulary): state.json's
  // "vocabulary", {"kind": "chars", "size": 65, "symbols": [10, 32, ...]}; unset in checkpoints
  // of other data and in those written before kiln recorded it.
  std::optional<Vocabulary> vocabulary;
};

std::string state_to_json(const TrainingState& state);
// Parses and checks state.json's text: every field present with its type and in range (no
// negative epoch or step, a batch size of at least 1). Throws kiln::Error naming `path` and the
// field.
TrainingState parse_training_state(std::string_view text, const std::string& path);

}  // namespace kiln
