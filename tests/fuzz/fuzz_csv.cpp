// CSV: headers, quotes, BOM, ragged rows, labels, non-finite numbers.
#include <cstdint>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/data/csv_dataset.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "tests/fuzz/fuzz_message.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const kiln::CsvDataset dataset(kiln::fuzz::write_input("data.csv", data, size));
    kiln::fuzz::read_last_sample(dataset);
  } catch (const kiln::Error& e) {
    kiln::fuzz::check_message(e);
  }
  return 0;
}
