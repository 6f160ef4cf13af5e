// What a run is, as one typed record. RunDescription is what its caller says of it (the model's
// spec, the data, the optimizer and its settings, the seed, the batch and the rest that changes
// its numbers); RunFingerprint adds what the Trainer knows of it. One record serves three checks:
// a checkpoint records it, resume() compares it, and the ranks of a data-parallel job agree on it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/setting.h"

namespace kiln {

class Module;

// Every field is optional in effect: an empty string or an unset value is not recorded and not
// compared (a library run that names no data is not refused a checkpoint that does).
struct RunDescription {
  std::string model;      // the model's spec (spec/model_spec.h); empty: none
  std::string data;       // the data's spec (spec/data_spec.h)
  std::string optimizer;  // its name (spec/optimizer_spec.h); empty: the optimizer's describe()
  std::optional<std::uint64_t> seed;
  std::int64_t batch_size = 0;          // the global batch; 0: not recorded
  std::optional<std::int64_t> samples;  // DataSpecOptions::samples
  std::optional<float> lr;
  std::optional<float> weight_decay;
  std::optional<float> momentum;  // the settings of the optimizer in use only (OptimizerSettings)
  std::optional<bool> nesterov;
  std::optional<float> beta1, beta2, eps;
  std::string schedule;  // spec/schedule_spec.h
  std::string loss;      // the loss's name
  std::optional<bool> shuffle;
  std::optional<double> test_share;      // DataSpecOptions::test_share
  std::optional<std::string> test_data;  // DataSpecOptions::test_data ("": none)
  // Which parameters the weight decay applies to, in the caller's words (train: "matrices" for a
  // GPT's nanoGPT groups, "all"); empty: not recorded.
  std::string weight_decay_groups;
  // TrainerOptions::clip_grad_norm: the Trainer records its own (0: no clipping) when unset.
  std::optional<float> clip_grad_norm;
  friend bool operator==(const RunDescription&, const RunDescription&) = default;
};

// RunDescription plus the model's structure (describe_structure) and the settings that shape the
// collectives or change the numbers of every step (precision, bucket size, CUDA graph, steps per
// epoch). A checkpoint records the description (state.json's "run"), resume() compares it field by
// field with this run's, and the ranks of a data-parallel job compare their whole fingerprints
// before any work (distributed/rank_agreement.h), each difference named with each rank's value.
struct RunFingerprint {
  RunDescription run;
  std::string model_structure;  // describe_structure
  std::string precision;        // matmul_precision_name of TrainerOptions::precision
  double bucket_mb = 0;
  bool cuda_graph = false;
  std::int64_t max_steps = 0;
};

// One field of the record: the setting it records (named "TrainerOptions::run.lr" in this API)
// and its value as text (nothing: not recorded).
struct RunField {
  Setting setting;
  std::optional<std::string> value;
};

// RunDescription's fields, each written once: `visit(name, setting, member)` for each, `name` its
// key in state.json's "run", in the order of the train app's flags for them (its messages list
// them so). A field's type says how it is unset: an empty string, an empty optional, a batch of
// 0. description_fields, the comparisons built on it and state.json's "run"
// (checkpoint/training_state.cpp) are generated from this list.
template <typename Run, typename Visit> void visit_run_fields(Run& r, Visit&& visit) {
  visit("batch_size", Setting::run_batch_size, r.batch_size);
  visit("beta1", Setting::run_beta1, r.beta1);
  visit("beta2", Setting::run_beta2, r.beta2);
  visit("clip_grad_norm", Setting::clip_grad_norm, r.clip_grad_norm);
  visit("data", Setting::run_data, r.data);
  visit("eps", Setting::run_eps, r.eps);
  visit("loss", Setting::run_loss, r.loss);
  visit("lr", Setting::run_lr, r.lr);
  visit("model", Setting::run_model, r.model);
  visit("momentum", Setting::run_momentum, r.momentum);
  visit("nesterov", Setting::run_nesterov, r.nesterov);
  visit("shuffle", Setting::run_shuffle, r.shuffle);
  visit("optimizer", Setting::run_optimizer, r.optimizer);
  visit("samples", Setting::run_samples, r.samples);
  visit("schedule", Setting::run_schedule, r.schedule);
  visit("seed", Setting::run_seed, r.seed);
  visit("test_data", Setting::run_test_data, r.test_data);
  visit("test_share", Setting::run_test_share, r.test_share);
  visit("weight_decay", Setting::run_weight_decay, r.weight_decay);
  visit("weight_decay_groups", Setting::run_weight_decay_groups, r.weight_decay_groups);
}

// The description's fields as text, in visit_run_fields' order.
std::vector<RunField> description_fields(const RunDescription& run);
// The description's fields, then the model's structure (as its fnv1a, which is short and equal
// exactly when the structures are) and the Trainer's settings: what the ranks compare.
std::vector<RunField> fingerprint_fields(const RunFingerprint& fingerprint);

// The structure of a model: each parameter and buffer by name with its shape,
// "layers.0.weight (32, 784); layers.0.bias (32,); ...": two models load each other's
// checkpoints exactly when their structures are equal.
std::string describe_structure(const Module& model);

// 64-bit FNV-1a: a fingerprint of any text.
std::uint64_t fnv1a(std::string_view text);

}  // namespace kiln
