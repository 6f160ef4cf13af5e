// The header of a safetensors file, validated in full before any tensor byte is copied: the
// 8-byte length, the JSON, each entry's dtype, shape and data_offsets, and that the entries tile
// the data exactly (in order, no overlap, no hole, nothing past the end), as the format requires.
// Apart from Tensor so that the fuzz target (tests/fuzz/) exercises exactly this code.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

struct SafetensorsEntry {
  std::string name;
  std::string dtype;  // "F32" or "I32": what kiln reads
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;  // data_offsets, from the start of the data
};

struct SafetensorsHeader {
  std::vector<SafetensorsEntry> entries;  // in the header's order
  std::map<std::string, std::string> metadata;
  std::uint64_t data_start = 0;  // offset of the data in the file
};

// `bytes`: the whole file; `path` names it in the kiln::Error thrown for anything wrong.
SafetensorsHeader parse_safetensors_header(std::string_view bytes, const std::string& path);

}  // namespace kiln
