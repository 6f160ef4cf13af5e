// Checkpoints: model.safetensors (the weights, named as in PyTorch: "layers.0.weight"),
// optimizer.safetensors (momentum buffers, moments) and state.json (checkpoint/training_state.h:
// epoch, position in the epoch, steps, RNG state, the run's settings and each piece's size and
// CRC32), written together as one unit of a CheckpointFolder (checkpoint/checkpoint_folder.h), so a
// crash at any moment leaves the previous checkpoint or the new one, never a mix.
#pragma once

#include <optional>
#include <string>

#include "kiln/checkpoint/checkpoint_folder.h"
#include "kiln/checkpoint/training_state.h"
#include "kiln/layers/module.h"
#include "kiln/optim/optimizer.h"

namespace kiln {

// Writes the next unit of `folder`; state.pieces is filled in here.
void save_checkpoint(CheckpointFolder& folder, Module& model, const Optimizer& optimizer,
                     TrainingState state);

struct SavedCheckpoint {
  std::string folder;  // where its pieces lie: a unit of the folder, or the folder itself
  TrainingState state;
};
// The newest checkpoint of `dir`, its state.json read and checked; nothing when `dir` holds none.
std::optional<SavedCheckpoint> read_checkpoint(const std::string& dir);
// Loads the weights, the optimizer state and the random generators' positions of `saved` after
// checking that the pieces are the ones its state.json records (size and CRC32): pieces of
// different saves are refused, naming the file. Throws kiln::Error for a broken piece or one of
// another model.
void restore_checkpoint(const SavedCheckpoint& saved, Module& model, Optimizer& optimizer);

// The weights (parameters and buffers) of the newest checkpoint of `dir` into `model`, checked
// as restore_checkpoint checks them: for inference from a trained run's folder.
void load_checkpoint_weights(const std::string& dir, Module& model);

// Copies weights from a safetensors file into the model's parameters and buffers by name (an init
// file). Every parameter must be present with its shape; extra tensors in the file are an error
// too, so a file for another model is never half-loaded. A Hugging Face GPT-2 file is read
// through its names and layout (checkpoint/hugging_face_gpt2.h).
void load_weights(const std::string& path, Module& model);

}  // namespace kiln
