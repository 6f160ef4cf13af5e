// The text tiny_gpt trains on: the plain fortune files of Debian's `fortunes` package in name
// order (their .dat indexes and .u8 links left out), or a file of the user's, cut to its first
// `max_bytes` when asked, and written to a file of its own, since kiln's token data reads a file
// (memory-mapped) and the fortunes are 43 of them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace tiny_gpt {

inline constexpr const char* kFortuneDir = "/usr/share/games/fortunes";

// The plain text files of `dir` (regular files whose name has no dot), sorted by name and
// concatenated. Throws std::runtime_error saying to install `fortunes` when there are none.
std::string fortune_text(const std::filesystem::path& dir = kFortuneDir);
// The bytes of `path`; throws std::runtime_error when it cannot be read.
std::string read_text(const std::filesystem::path& path);

// A file in the temporary folder holding `text`, removed when this goes out of scope.
class TextFile {
 public:
  explicit TextFile(const std::string& text);
  ~TextFile();
  TextFile(const TextFile&) = delete;
  TextFile& operator=(const TextFile&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace tiny_gpt
