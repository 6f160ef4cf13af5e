// The data's own files: a sample spread evenly over them is read (the read rate, the page cache
// as it is: a second run reads from memory) and, for PNG and JPEG files (recognised by their
// first bytes), decoded on one core from memory (the decode rate per core).
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "apps/doctor/measure.h"
#include "kiln/core/error.h"
#include "kiln/data/image_io.h"
#include "kiln/spec/data_spec.h"

namespace kiln::doctor {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::vector<std::string> files_under(const std::string& folder) {
  std::vector<std::string> out;
  KILN_CHECK(fs::is_directory(folder), "data folder '{}' does not exist or is no folder", folder);
  for (const auto& entry : fs::recursive_directory_iterator(folder))
    if (entry.is_regular_file()) out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The files a spec reads: every file under an image or Fashion-MNIST folder, else the named files.
std::vector<std::string> spec_files(const std::string& spec) {
  if (spec.rfind("images:", 0) == 0) return files_under(spec.substr(7));
  if (spec.rfind("fashion-mnist", 0) == 0)
    return files_under(spec.size() > 14 ? spec.substr(14) : "/usr/share/datasets/fashion-mnist");
  return data_spec_files(spec);
}

std::vector<std::string> spread(const std::vector<std::string>& files, std::size_t most) {
  if (files.size() <= most) return files;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < most; ++i) out.push_back(files[i * files.size() / most]);
  return out;
}

enum class Kind { png, jpeg, other };

Kind kind_of(const std::string& bytes) {
  if (bytes.size() >= 8 && bytes.compare(0, 4, "\x89PNG") == 0) return Kind::png;
  if (bytes.size() >= 3 && static_cast<unsigned char>(bytes[0]) == 0xFF &&
      static_cast<unsigned char>(bytes[1]) == 0xD8)
    return Kind::jpeg;
  return Kind::other;
}

}  // namespace

DataFigures measure_data(const std::string& spec, const Sizes& sizes) {
  DataFigures d;
  d.spec = spec;
  const std::vector<std::string> sample =
      spread(spec_files(spec), static_cast<std::size_t>(sizes.decode_files));
  KILN_CHECK(!sample.empty(), "data {} holds no files to measure", spec);
  std::vector<std::string> contents;
  double bytes = 0.0;
  const auto read_start = Clock::now();
  for (const std::string& path : sample) {
    std::ifstream in(path, std::ios::binary);
    KILN_CHECK(in, "cannot read '{}' of data {}", path, spec);
    contents.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    bytes += static_cast<double>(contents.back().size());
  }
  const double read_s = std::chrono::duration<double>(Clock::now() - read_start).count();
  d.read_mbs = bytes / std::max(read_s, 1e-9) * 1e-6;
  d.mean_file_kib = bytes / static_cast<double>(sample.size()) / 1024.0;
  double png_s = 0.0, jpeg_s = 0.0;
  for (std::size_t i = 0; i < contents.size(); ++i) {
    const Kind kind = kind_of(contents[i]);
    if (kind == Kind::other) continue;
    const auto start = Clock::now();
    (void)decode_image(reinterpret_cast<const std::uint8_t*>(contents[i].data()),
                       contents[i].size(), 1, sample[i]);
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    (kind == Kind::png ? png_s : jpeg_s) += s;
    ++(kind == Kind::png ? d.png_files : d.jpeg_files);
  }
  if (d.png_files > 0) d.png_per_core_s = d.png_files / std::max(png_s, 1e-9);
  if (d.jpeg_files > 0) d.jpeg_per_core_s = d.jpeg_files / std::max(jpeg_s, 1e-9);
  return d;
}

}  // namespace kiln::doctor
