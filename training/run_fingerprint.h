// What a run is, as one typed record: the model's spec when it was built from one, the data,
// the optimizer, the seed, the batch and the settings that change its numbers; beside it the
// model's structure (describe_structure). A checkpoint records both, resume() compares them,
// and the ranks of a data-parallel job compare their fingerprint before any work.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace kiln {

class Module;

struct RunDescription {
  std::string model;      // the model's spec (spec/model_spec.h); empty: none
  std::string data;       // the data's spec (spec/data_spec.h)
  std::string optimizer;  // its name; empty: the optimizer's describe()
  std::uint64_t seed = 0;
  std::int64_t batch_size = 0;  // the global batch
};

// The structure of a model: each parameter and buffer by name with its shape,
// "layers.0.weight (32, 784); layers.0.bias (32,); ...": two models load each other's
// checkpoints exactly when their structures are equal.
std::string describe_structure(const Module& model);

// 64-bit FNV-1a: a fingerprint of any text.
std::uint64_t fnv1a(std::string_view text);

// A 64-bit FNV-1a of the description, the model's structure and the settings, for ranks to
// compare.
std::uint64_t run_fingerprint(const RunDescription& run, const std::string& model_structure,
                              const std::map<std::string, std::string>& settings);

}  // namespace kiln
