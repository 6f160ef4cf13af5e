// Reading a whole file kiln was given (a CSV, an .npy, a safetensors file of initial weights, a
// checkpoint's state): only a regular file is read, and only within the size the file system
// states for it. A FIFO, a device (/dev/zero is endless) or a folder is refused by name instead
// of being read until memory runs out, and an allocation that fails names the file and the size.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kiln {

class Mapping;

class InputFile {
 public:
  // Opens `path` for reading; `what` names it in messages ("CSV file", ".npy file"): "cannot open
  // CSV file PATH: No such file or directory", "CSV file PATH is a FIFO, not a regular file".
  InputFile(const std::string& path, std::string_view what);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // The size when opened; the file is read up to it, however much it grows meanwhile.
  std::uint64_t size() const { return size_; }
  // The whole file (its first size() bytes); throws kiln::Error naming the file when it cannot
  // be read or the memory for it cannot be had.
  std::string read_all() const;
  // The whole file mapped read-only into memory (its first size() bytes; an empty file maps to
  // an empty view): for large inputs read in place (token files). Throws kiln::Error naming the
  // file when it cannot be mapped.
  Mapping map() const;

 private:
  std::string path_;
  std::string what_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// A read-only memory mapping of a file, unmapped on destruction. Its bytes stay valid while it
// lives, even after the InputFile that made it is closed.
class Mapping {
 public:
  Mapping() = default;
  Mapping(const void* data, std::uint64_t size) : data_(data), size_(size) {}
  ~Mapping();
  Mapping(Mapping&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
  }
  Mapping& operator=(Mapping&& other) noexcept;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;

  std::string_view bytes() const {
    return {static_cast<const char*>(data_), static_cast<std::size_t>(size_)};
  }

 private:
  const void* data_ = nullptr;
  std::uint64_t size_ = 0;
};

// InputFile(path, what).read_all().
std::string read_input_file(const std::string& path, std::string_view what);

}  // namespace kiln
