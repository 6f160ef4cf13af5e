// Checkpoints: a folder holding model.safetensors (the weights, named as in PyTorch:
// "layers.0.weight"), optimizer.safetensors (momentum buffers, moments) and state.json (epoch,
// position in the epoch, optimizer steps, RNG state, and the run's settings). Each file is written
// atomically, state.json last, so a crash mid-save leaves the previous checkpoint readable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kiln/layers/module.h"
#include "kiln/optim/optimizer.h"

namespace kiln {

struct TrainingState {
  std::int64_t epoch = 0;          // epochs completed
  std::int64_t batches_done = 0;   // batches of epoch `epoch` already trained (an interrupted epoch)
  std::int64_t global_step = 0;    // optimizer steps so far
  std::uint64_t seed = 0;
  std::uint64_t generator_offset = 0;  // the training Generator's counter (dropout masks)
  std::string model;               // the --model spec, checked on resume
  std::string data;                // the --data spec, checked on resume
  std::int64_t batch_size = 0;
  std::string optimizer;
};

void save_checkpoint(const std::string& dir, const Module& model, const Optimizer& optimizer,
                     const TrainingState& state);
// Returns nothing when `dir` holds no checkpoint; throws kiln::Error when it holds a broken one
// or one of another model.
std::optional<TrainingState> load_checkpoint(const std::string& dir, Module& model, Optimizer& optimizer);

// Copies weights from a safetensors file into the model's parameters and buffers by name (--init).
// Every parameter must be present with its shape; extra tensors in the file are an error too,
// so a file for another model is never half-loaded.
void load_weights(const std::string& path, Module& model);

}  // namespace kiln
