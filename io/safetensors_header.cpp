// Every number in a safetensors header comes from the file: extents and offsets are read as
// unsigned integers, multiplied without wrapping and compared with the data actually present.
#include "kiln/io/safetensors_header.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "kiln/core/checked_math.h"
#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"

namespace kiln {

namespace {

constexpr std::int64_t kItemSize = 4;  // F32 and I32
// More dimensions than any framework makes (NumPy's and PyTorch's limit is 64): a damaged header.
constexpr std::size_t kMaxRank = 64;

// The JSON of the header, refusing a tensor named twice: JSON keeps the last entry of a
// duplicated key, which would leave the first one's bytes to no tensor.
nlohmann::json parse_header_json(std::string_view text, const std::string& path) {
  std::set<std::string> names;
  const auto refuse_duplicates = [&](int depth, nlohmann::json::parse_event_t event,
                                     nlohmann::json& parsed) {
    if (depth == 1 && event == nlohmann::json::parse_event_t::key)
      KILN_CHECK(names.insert(parsed.get<std::string>()).second,
                 "'{}': the safetensors header names tensor {} twice; each name must be unique",
                 path, excerpt(parsed.get<std::string>()));
    return true;
  };
  try {
    return nlohmann::json::parse(text, refuse_duplicates);
  } catch (const nlohmann::json::exception& e) {
    KILN_THROW("'{}' has a malformed safetensors header: {}", path,
               bare_excerpt(e.what(), 4 * kExcerptBytes));
  }
}

std::uint64_t read_u64_le(std::string_view bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < 8; ++i)
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  return value;
}

// A non-negative integer of the header, or throws naming the field (and the tensor, as shown).
std::uint64_t unsigned_field(const nlohmann::json& value, const std::string& path,
                             const std::string& shown_name, const char* field) {
  KILN_CHECK(value.is_number_unsigned(),
             "'{}': tensor {} has {} {}: expected non-negative integers", path, shown_name, field,
             bare_excerpt(value.dump()));
  return value.get<std::uint64_t>();
}

SafetensorsEntry parse_entry(const std::string& name, const nlohmann::json& entry,
                             std::uint64_t data_size, const std::string& path) {
  const std::string shown = excerpt(name);  // the name as messages show it
  KILN_CHECK(entry.is_object() && entry.contains("dtype") && entry.contains("shape") &&
                 entry.contains("data_offsets"),
             "'{}': the header entry of tensor {} is not an object with dtype, shape and "
             "data_offsets: {}",
             path, shown, bare_excerpt(entry.dump()));
  SafetensorsEntry e;
  e.name = name;
  const nlohmann::json& dtype = entry["dtype"];
  KILN_CHECK(dtype.is_string(), "'{}': tensor {} has dtype {}: expected a string such as \"F32\"",
             path, shown, bare_excerpt(dtype.dump()));
  e.dtype = dtype.get<std::string>();
  KILN_CHECK(e.dtype == "F32" || e.dtype == "I32",
             "'{}': tensor {} is {}; kiln reads F32 and I32 (convert it to float32 first)", path,
             shown, bare_excerpt(e.dtype));
  const nlohmann::json& shape = entry["shape"];
  KILN_CHECK(shape.is_array(), "'{}': tensor {} has shape {}: expected a list of extents", path,
             shown, bare_excerpt(shape.dump()));
  KILN_CHECK(shape.size() <= kMaxRank, "'{}': tensor {} has {} dimensions; at most {} are read",
             path, shown, shape.size(), kMaxRank);
  for (const nlohmann::json& extent : shape) {
    const std::uint64_t v = unsigned_field(extent, path, shown, "shape");
    KILN_CHECK(v <= static_cast<std::uint64_t>(INT64_MAX),
               "'{}': tensor {} has an extent {} past 2^63", path, shown, v);
    e.shape.push_back(static_cast<std::int64_t>(v));
  }
  const nlohmann::json& offsets = entry["data_offsets"];
  KILN_CHECK(offsets.is_array() && offsets.size() == 2,
             "'{}': tensor {} has data_offsets {}: expected [begin, end]", path, shown,
             bare_excerpt(offsets.dump()));
  e.begin = unsigned_field(offsets[0], path, shown, "data_offsets");
  e.end = unsigned_field(offsets[1], path, shown, "data_offsets");
  const auto numel = checked_product(e.shape);
  const auto bytes = numel ? checked_mul(*numel, kItemSize) : numel;
  KILN_CHECK(bytes.has_value(), "'{}': tensor {} of shape [{}] needs more than 2^63 bytes", path,
             shown, fmt::join(e.shape, ", "));
  KILN_CHECK(e.begin <= e.end && e.end <= data_size,
             "'{}': tensor {} has data_offsets [{}, {}], outside the {} bytes of data: the file "
             "is truncated or damaged",
             path, shown, e.begin, e.end, data_size);
  KILN_CHECK(e.end - e.begin == static_cast<std::uint64_t>(*bytes),
             "'{}': tensor {} {} of shape [{}] needs {} bytes, but its data_offsets [{}, {}] hold "
             "{}",
             path, shown, e.dtype, fmt::join(e.shape, ", "), *bytes, e.begin, e.end,
             e.end - e.begin);
  return e;
}

// The format's rule: sorted by offset, the tensors cover the data exactly, each one once.
void check_tiling(std::vector<const SafetensorsEntry*> entries, std::uint64_t data_size,
                  const std::string& path) {
  std::sort(entries.begin(), entries.end(), [](const auto* a, const auto* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  std::uint64_t covered = 0;
  const SafetensorsEntry* previous = nullptr;
  for (const SafetensorsEntry* e : entries) {
    KILN_CHECK(e->begin >= covered,
               "'{}': tensors {} and {} overlap (data_offsets [{}, {}] and [{}, {}])", path,
               excerpt(previous ? previous->name : ""), excerpt(e->name),
               previous ? previous->begin : 0, covered, e->begin, e->end);
    KILN_CHECK(e->begin == covered,
               "'{}': bytes [{}, {}) of the data belong to no tensor (before tensor {}): a damaged "
               "file?",
               path, covered, e->begin, excerpt(e->name));
    covered = e->end;
    previous = e;
  }
  KILN_CHECK(covered == data_size,
             "'{}': the last {} bytes of the data belong to no tensor: a damaged file?", path,
             data_size - covered);
}

}  // namespace

SafetensorsHeader parse_safetensors_header(std::string_view bytes, const std::string& path) {
  KILN_CHECK(bytes.size() >= 8,
             "'{}' is not a safetensors file: {} bytes, shorter than its header length", path,
             bytes.size());
  const std::uint64_t length = read_u64_le(bytes);
  KILN_CHECK(length <= bytes.size() - 8,
             "'{}' is truncated: its header claims {} bytes, the file has {}", path, length,
             bytes.size() - 8);
  const nlohmann::json json = parse_header_json(bytes.substr(8, length), path);
  KILN_CHECK(json.is_object(), "'{}' has a safetensors header that is not a JSON object", path);
  SafetensorsHeader header;
  header.data_start = 8 + length;
  const std::uint64_t data_size = bytes.size() - header.data_start;
  for (const auto& [name, entry] : json.items()) {
    if (name == "__metadata__") {
      KILN_CHECK(entry.is_object(), "'{}': __metadata__ is {}: expected an object of strings", path,
                 bare_excerpt(entry.dump()));
      for (const auto& [key, value] : entry.items())
        header.metadata[key] =
            value.is_string() ? value.get<std::string>() : bare_excerpt(value.dump());
      continue;
    }
    header.entries.push_back(parse_entry(name, entry, data_size, path));
  }
  std::vector<const SafetensorsEntry*> order;
  for (const SafetensorsEntry& e : header.entries) order.push_back(&e);
  check_tiling(std::move(order), data_size, path);
  return header;
}

}  // namespace kiln
