// Checks shared by the Dataset implementations.
#include "kiln/data/dataset.h"

#include "kiln/core/error.h"

namespace kiln {

void check_sample_index(const Dataset& dataset, std::int64_t index) {
  KILN_CHECK(index >= 0 && index < dataset.size(), "sample index {} is out of range [0, {}) of {}",
             index, dataset.size(), dataset.describe());
}

}  // namespace kiln
