// Every number in a safetensors header comes from the file: extents and offsets are read as
// unsigned integers, multiplied without wrapping and compared with the data actually present.
#include "kiln/io/safetensors_header.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "kiln/core/checked_math.h"
#include "kiln/core/error.h"

namespace kiln {

namespace {

constexpr std::int64_t kItemSize = 4;  // F32 and I32

std::uint64_t read_u64_le(std::string_view bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < 8; ++i)
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  return value;
}

// A non-negative integer of the header, or throws naming the field.
std::uint64_t unsigned_field(const nlohmann::json& value, const std::string& path,
                             const std::string& name, const char* field) {
  KILN_CHECK(value.is_number_unsigned(),
             "'{}': tensor '{}' has {} {}: expected non-negative integers", path, name, field,
             value.dump());
  return value.get<std::uint64_t>();
}

SafetensorsEntry parse_entry(const std::string& name, const nlohmann::json& entry,
                             std::uint64_t data_size, const std::string& path) {
  KILN_CHECK(entry.is_object() && entry.contains("dtype") && entry.contains("shape") &&
                 entry.contains("data_offsets"),
             "'{}': the header entry of tensor '{}' is not an object with dtype, shape and "
             "data_offsets: {}",
             path, name, entry.dump());
  SafetensorsEntry e;
  e.name = name;
  const nlohmann::json& dtype = entry["dtype"];
  KILN_CHECK(dtype.is_string(), "'{}': tensor '{}' has dtype {}: expected a string such as \"F32\"",
             path, name, dtype.dump());
  e.dtype = dtype.get<std::string>();
  KILN_CHECK(e.dtype == "F32" || e.dtype == "I32",
             "'{}': tensor '{}' is {}; kiln reads F32 and I32 (convert it to float32 first)", path,
             name, e.dtype);
  const nlohmann::json& shape = entry["shape"];
  KILN_CHECK(shape.is_array(), "'{}': tensor '{}' has shape {}: expected a list of extents", path,
             name, shape.dump());
  for (const nlohmann::json& extent : shape) {
    const std::uint64_t v = unsigned_field(extent, path, name, "shape");
    KILN_CHECK(v <= static_cast<std::uint64_t>(INT64_MAX),
               "'{}': tensor '{}' has an extent {} past 2^63", path, name, v);
    e.shape.push_back(static_cast<std::int64_t>(v));
  }
  const nlohmann::json& offsets = entry["data_offsets"];
  KILN_CHECK(offsets.is_array() && offsets.size() == 2,
             "'{}': tensor '{}' has data_offsets {}: expected [begin, end]", path, name,
             offsets.dump());
  e.begin = unsigned_field(offsets[0], path, name, "data_offsets");
  e.end = unsigned_field(offsets[1], path, name, "data_offsets");
  const auto numel = checked_product(e.shape);
  const auto bytes = numel ? checked_mul(*numel, kItemSize) : numel;
  KILN_CHECK(bytes.has_value(), "'{}': tensor '{}' of shape [{}] needs more than 2^63 bytes", path,
             name, fmt::join(e.shape, ", "));
  KILN_CHECK(e.begin <= e.end && e.end <= data_size,
             "'{}': tensor '{}' has data_offsets [{}, {}], outside the {} bytes of data: the file "
             "is truncated or damaged",
             path, name, e.begin, e.end, data_size);
  KILN_CHECK(
      e.end - e.begin == static_cast<std::uint64_t>(*bytes),
      "'{}': tensor '{}' {} of shape [{}] needs {} bytes, but its data_offsets [{}, {}] hold "
      "{}",
      path, name, e.dtype, fmt::join(e.shape, ", "), *bytes, e.begin, e.end, e.end - e.begin);
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
               "'{}': tensors '{}' and '{}' overlap (data_offsets [{}, {}] and [{}, {}])", path,
               previous ? previous->name : "", e->name, previous ? previous->begin : 0, covered,
               e->begin, e->end);
    KILN_CHECK(
        e->begin == covered,
        "'{}': bytes [{}, {}) of the data belong to no tensor (before tensor '{}'): a damaged "
        "file?",
        path, covered, e->begin, e->name);
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
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(bytes.substr(8, length));
  } catch (const nlohmann::json::exception& e) {
    KILN_THROW("'{}' has a malformed safetensors header: {}", path, e.what());
  }
  KILN_CHECK(json.is_object(), "'{}' has a safetensors header that is not a JSON object", path);
  SafetensorsHeader header;
  header.data_start = 8 + length;
  const std::uint64_t data_size = bytes.size() - header.data_start;
  for (const auto& [name, entry] : json.items()) {
    if (name == "__metadata__") {
      KILN_CHECK(entry.is_object(), "'{}': __metadata__ is {}: expected an object of strings", path,
                 entry.dump());
      for (const auto& [key, value] : entry.items())
        header.metadata[key] = value.is_string() ? value.get<std::string>() : value.dump();
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
