// Data sets by name, as train's --data takes them: "fashion-mnist[:FOLDER]", "article",
// "csv:PATH" (label in the first column), "npy:FEATURES[,LABELS]", "images:DIR". Each yields a
// train and a test split; where the source has none of its own, every tenth sample is held out.
#pragma once

#include <memory>
#include <string>

#include "kiln/data/dataset.h"

namespace kiln {

struct DataSplits {
  std::shared_ptr<const Dataset> train;
  std::shared_ptr<const Dataset> test;
};

struct DataSpecOptions {
  std::int64_t samples = 0;  // train samples to use, spread evenly over the set; 0 = all (article: 160,000)
  std::uint64_t seed = 0;    // for generated data and random transforms
};

// Throws kiln::Error naming the spec and the accepted forms, or the data's own error.
DataSplits open_data(const std::string& spec, const DataSpecOptions& options = {});

}  // namespace kiln
