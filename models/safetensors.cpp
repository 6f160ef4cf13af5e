// safetensors reading and writing, on nlohmann::json for the header.
#include "kiln/models/safetensors.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

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

std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  KILN_CHECK(in.good(), "cannot open '{}': {}", path, std::strerror(errno));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& bytes) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    KILN_CHECK(out.good(), "cannot write '{}': {}", temporary, std::strerror(errno));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    KILN_CHECK(out.good(), "writing '{}' failed (disk full?): {}", temporary, std::strerror(errno));
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  KILN_CHECK(!ec, "cannot rename '{}' to '{}': {}", temporary, path, ec.message());
}

void save_safetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header;
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::string data;
  for (const auto& [name, tensor] : tensors) {
    KILN_CHECK(tensor.dtype() == DType::f32 || tensor.dtype() == DType::i32,
               "save_safetensors: '{}' is {}; only float32 and int32 are written", name, tensor.str());
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
  write_file_atomically(path, bytes);
}

SafetensorsFile load_safetensors(const std::string& path) {
  const std::string bytes = read_whole_file(path);
  KILN_CHECK(bytes.size() >= 8, "'{}' is not a safetensors file: {} bytes, shorter than its header length",
             path, bytes.size());
  std::uint64_t length = 0;
  for (int i = 0; i < 8; ++i) length |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  KILN_CHECK(length <= bytes.size() - 8, "'{}' is truncated: its header claims {} bytes, the file has {}",
             path, length, bytes.size() - 8);
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.substr(8, length));
  } catch (const nlohmann::json::exception& e) {
    KILN_THROW("'{}' has a malformed safetensors header: {}", path, e.what());
  }
  KILN_CHECK(header.is_object(), "'{}' has a safetensors header that is not a JSON object", path);
  const std::size_t data_start = 8 + length;
  SafetensorsFile file;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      for (const auto& [key, value] : entry.items())
        file.metadata[key] = value.is_string() ? value.get<std::string>() : value.dump();
      continue;
    }
    try {
      const std::string code = entry.at("dtype").get<std::string>();
      KILN_CHECK(code == "F32" || code == "I32",
                 "'{}': tensor '{}' is {}; kiln reads F32 and I32 (convert it to float32 first)", path,
                 name, code);
      const Shape shape(entry.at("shape").get<std::vector<std::int64_t>>());
      const auto offsets = entry.at("data_offsets").get<std::vector<std::size_t>>();
      const DType dtype = code == "F32" ? DType::f32 : DType::i32;
      KILN_CHECK(offsets.size() == 2 && offsets[0] <= offsets[1] &&
                     offsets[1] - offsets[0] == static_cast<std::size_t>(shape.numel()) * dtype_size(dtype) &&
                     data_start + offsets[1] <= bytes.size(),
                 "'{}': tensor '{}' {} has data offsets that do not fit its shape or the file "
                 "(truncated?)", path, name, shape.str());
      Tensor t = Tensor::empty(shape, dtype);
      if (t.nbytes() > 0) std::memcpy(t.raw_data(), bytes.data() + data_start + offsets[0], t.nbytes());
      file.tensors.emplace(name, std::move(t));
    } catch (const nlohmann::json::exception& e) {
      KILN_THROW("'{}': the header entry of tensor '{}' is malformed: {}", path, name, e.what());
    }
  }
  return file;
}

}  // namespace kiln
