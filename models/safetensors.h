// The safetensors format (huggingface/safetensors): an 8-byte little-endian header length, a
// JSON header {name: {dtype, shape, data_offsets}, "__metadata__": {...}}, then the raw,
// little-endian tensor bytes. PyTorch, JAX and others read and write it; kiln uses it for
// weights and optimizer state. Writes are atomic: a temporary file, then rename.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

struct SafetensorsFile {
  std::map<std::string, Tensor> tensors;  // on the CPU
  std::map<std::string, std::string> metadata;
};

// Tensors may live on any device; they are read to the host. float32 and int32 only.
void save_safetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata = {});
// Throws kiln::Error naming the file and what is wrong (truncated, bad header, unsupported dtype).
SafetensorsFile load_safetensors(const std::string& path);

// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so a crash
// leaves either the old file or the new one, never a torn one.
void write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace kiln
