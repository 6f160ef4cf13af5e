// The fortunes' text and the temporary file it is trained from (corpus.h).
#include "corpus.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <unistd.h>

namespace tiny_gpt {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string fortune_text(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    // Plain fortune files only: "cookie", not "cookie.dat" (strfile's index) or "cookie.u8"
    // (a link to the same text); a link of any other name is left out too, so no text is twice.
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && !entry.is_symlink() && name.find('.') == std::string::npos)
      files.push_back(entry.path());
  }
  if (files.empty())
    throw std::runtime_error("no fortune files in " + dir.string() +
                             ": install Debian's fortunes package (scripts/install-deps.sh) or "
                             "give a text file");
  std::sort(files.begin(), files.end());  // a stable order, so the split is the same everywhere
  std::string text;
  for (const auto& file : files) text += read_text(file);
  return text;
}

TextFile::TextFile(const std::string& text)
    : path_(std::filesystem::temp_directory_path() /
            ("kiln-tiny-gpt-" + std::to_string(::getpid()) + ".txt")) {
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out.flush()) throw std::runtime_error("cannot write " + path_.string());
}

TextFile::~TextFile() {
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

}  // namespace tiny_gpt
