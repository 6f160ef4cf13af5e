// Model specs, the model words of the spec language: "article" (the article's 784-1024x4-10 MLP),
// "lenet5", "cnn" (both for 1x28x28 images), an MLP spec "mlp:784-512-256-10" (ReLU between Linear
// layers), a GPT "gpt:LAYERS-HEADS-WIDTH-CONTEXT[:vocab=N]" (models/gpt.h) over token windows (its
// vocabulary N, or the data's), or "gpt2" (GPT-2 small); the builders are models/presets.h.
#pragma once

#include <memory>
#include <string>

#include "kiln/core/memory_budget.h"
#include "kiln/core/random.h"
#include "kiln/models/gpt.h"
#include "kiln/models/sequential.h"

namespace kiln {

struct Model {
  std::string spec;
  std::shared_ptr<Module> net;
  // One sample as the network takes it: (784) for an MLP, (1, 28, 28) for lenet5 and cnn. A batch
  // of (B, sample shape of the data) is viewed as (B, input_shape) — free, the same elements.
  Shape input_shape;

  // A batch (B, sample shape of the data) as the network takes it, (B, input_shape): a view.
  Tensor as_input(const Tensor& batch) const;
  // The network as the Sequential every preset but gpt builds (summaries, layer access); throws
  // for a gpt model.
  Sequential& sequential() const;
};

// The input width and class count of the data must fit the spec; a mismatch is an error that
// says which side to change.
// sample_shape: one sample's shape in the data, e.g. (1, 28, 28), or (T) token ids for gpt;
// classes: the label count (gpt: the vocabulary size).
// Parameters are named as in PyTorch ("layers.0.weight"), with no Flatten layer in front.
// `stop` (may be null) is polled while the layers are built: when set, kiln::Interrupted.
Model build_model(const std::string& spec, const Shape& sample_shape, std::int32_t classes,
                  Generator& gen, const std::atomic<bool>* stop = nullptr);

// What training a model of `spec` takes in memory on `device` with batches of `batch_size` and an
// optimizer keeping `optimizer_state_tensors` tensors per parameter (optimizer_state_tensors() of
// spec/optimizer_spec.h), computed without building it (an MLP from its widths, with checked
// arithmetic that names the layer whose size passes int64).
MemoryEstimate estimate_model_memory(const std::string& spec, const Shape& sample_shape,
                                     std::int32_t classes, std::int64_t batch_size,
                                     int optimizer_state_tensors, Device device = Device::cpu());

// Throws kiln::Error with the figures when that estimate passes the memory available on
// `device` (core/memory_budget.h): call before build_model, so a model too big is refused
// before seconds of allocation.
void check_model_fits(const std::string& spec, const Shape& sample_shape, std::int32_t classes,
                      std::int64_t batch_size, int optimizer_state_tensors, Device device);

// A GPT spec: "gpt:..." or "gpt2".
bool is_gpt_spec(const std::string& spec);

// The shape of a GPT spec: "gpt:LAYERS-HEADS-WIDTH-CONTEXT" with its vocabulary 0 (the data's)
// unless ":vocab=N" gives it, or "gpt2": 12-12-768-1024, vocabulary 50257 padded to 50304 as llm.c
// pads it. Throws kiln::Error for another spec or a width its heads do not divide.
GptConfig gpt_config(const std::string& spec);
// The same with the vocabulary resolved for data of `data_vocabulary` tokens: the spec's, which
// must hold the data's ids, or else the data's.
GptConfig gpt_config(const std::string& spec, std::int64_t data_vocabulary);

// The context a model spec states (gpt:LAYERS-HEADS-WIDTH-CONTEXT's last number, 1024 for gpt2:
// the longest token windows it reads), checked as gpt_config checks it; 0 for a model of another
// kind.
std::int64_t model_context(const std::string& spec);

// The widths of an MLP spec ("article" or "mlp:a-b-c"), for messages and FLOP counts.
std::vector<std::int64_t> mlp_widths(const std::string& spec);

}  // namespace kiln
