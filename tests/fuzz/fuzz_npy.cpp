// .npy: the parser from memory, then the data set from a file (shape checks, labels from the last
// column, non-finite features). A kiln::Error is the expected answer to a bad file; anything
// else (a crash, a sanitizer report, another exception) is a bug.
#include <cstdint>

#include "kiln/core/error.h"
#include "kiln/data/npy_dataset.h"
#include "kiln/data/npy_file.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "tests/fuzz/fuzz_message.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const kiln::NpyArray array = kiln::parse_npy({data, size}, "fuzz.npy");
    if (array.numel() > 0) (void)array.at(array.numel() - 1);
  } catch (const kiln::Error& e) {
    kiln::fuzz::check_message(e);
    return 0;
  }
  try {
    const kiln::NpyDataset dataset(kiln::fuzz::write_input("x.npy", data, size));
    kiln::fuzz::read_last_sample(dataset);
  } catch (const kiln::Error& e) {
    kiln::fuzz::check_message(e);
  }
  return 0;
}
