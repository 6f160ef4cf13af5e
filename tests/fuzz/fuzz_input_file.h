// For the targets whose parser opens a file by path: the fuzz input written to a file of this
// process's own under /tmp (or $TMPDIR), rewritten for every input; and a read of the last
// sample of the data set the parser made, so that its sizes are exercised too.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "kiln/data/dataset.h"

namespace kiln::fuzz {

inline std::string scratch_path(const char* name) {
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp != nullptr ? tmp : "/tmp") + "/kiln_fuzz_" + std::to_string(getpid()) +
         "_" + name;
}

inline std::string write_input(const char* name, const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch_path(name);
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

inline void read_last_sample(const Dataset& dataset) {
  std::vector<float> x(static_cast<std::size_t>(dataset.sample_shape().numel()));
  if (!dataset.has_class_labels()) {  // a float labels file: regression targets
    std::vector<float> y(static_cast<std::size_t>(dataset.target_shape().numel()));
    dataset.get(dataset.size() - 1, x.data(), y.data());
    return;
  }
  std::int32_t y = 0;
  dataset.get(dataset.size() - 1, x.data(), &y);
}

}  // namespace kiln::fuzz
