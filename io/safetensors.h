// The safetensors format (huggingface/safetensors): an 8-byte little-endian header length, a
// JSON header {name: {dtype, shape, data_offsets}, "__metadata__": {...}}, then the raw,
// little-endian tensor bytes. PyTorch, JAX and others read and write it; kiln uses it for
// weights and optimizer state. Writes are atomic: a temporary file, then rename.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

struct SafetensorsFile {
  std::map<std::string, Tensor> tensors;  // on the CPU
  std::map<std::string, std::string> metadata;
};

// Tensors may live on any device; they are read to the host. float32 and int32 only.
void save_safetensors(const std::string& path,
                      const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata = {});
// The bytes of such a file, for writers that place them themselves (checkpoint folders).
std::string serialize_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                                  const std::map<std::string, std::string>& metadata = {});
// Throws kiln::Error naming the file and what is wrong (truncated, bad header, unsupported dtype,
// offsets that do not fit: io/safetensors_header.h).
SafetensorsFile load_safetensors(const std::string& path);
// The same from the bytes of a whole file; `path` names it in error messages.
SafetensorsFile parse_safetensors(std::string_view bytes, const std::string& path);

}  // namespace kiln
