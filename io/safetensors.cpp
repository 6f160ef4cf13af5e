// safetensors reading and writing, on nlohmann::json for the header; the header a file brings is
// validated by io/safetensors_header.cpp before a byte of it is copied.
#include "kiln/io/safetensors.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <new>

#include "kiln/core/excerpt.h"

#include "kiln/io/durable_file.h"
#include "kiln/io/safetensors_header.h"

namespace kiln {

namespace {

const char* dtype_code(DType t) {
  switch (t) {
    case DType::f32: return "F32";
    case DType::i32: return "I32";
    case DType::bf16: return "BF16";
    case DType::f16: return "F16";
  }
  return "?";
}

}  // namespace

std::string serialize_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                                  const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header;
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::string data;
  for (const auto& [name, tensor] : tensors) {
    KILN_CHECK(tensor.dtype() == DType::f32 || tensor.dtype() == DType::i32,
               "save_safetensors: '{}' is {}; only float32 and int32 are written", name,
               tensor.str());
    const Tensor host = tensor.to(Device::cpu());
    const std::size_t begin = data.size();
    data.append(static_cast<const char*>(host.raw_data()), host.nbytes());
    header[name] = {{"dtype", dtype_code(tensor.dtype())},
                    {"shape", tensor.shape().dims()},
                    {"data_offsets", {begin, data.size()}}};
  }
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');  // the format recommends an 8-byte aligned start
  std::string bytes(8, '\0');
  std::uint64_t length = json.size();
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((length >> (8 * i)) & 0xFF);
  bytes += json;
  bytes += data;
  return bytes;
}

void save_safetensors(const std::string& path,
                      const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  write_file_atomically(path, serialize_safetensors(tensors, metadata));
}

SafetensorsFile parse_safetensors(std::string_view bytes, const std::string& path) {
  const SafetensorsHeader header = parse_safetensors_header(bytes, path);
  SafetensorsFile file;
  file.metadata = header.metadata;
  for (const SafetensorsEntry& e : header.entries) {
    try {
      Tensor t = Tensor::empty(Shape(e.shape), e.dtype == "F32" ? DType::f32 : DType::i32);
      if (t.nbytes() > 0)
        std::memcpy(t.raw_data(), bytes.data() + header.data_start + e.begin, t.nbytes());
      file.tensors.emplace(e.name, std::move(t));
    } catch (const std::bad_alloc&) {
      KILN_THROW("'{}': out of memory for tensor {} ({} bytes)", path, excerpt(e.name),
                 e.end - e.begin);
    }
  }
  return file;
}

SafetensorsFile load_safetensors(const std::string& path) {
  return parse_safetensors(read_whole_file(path), path);
}

}  // namespace kiln
