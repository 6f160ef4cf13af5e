// IDX (plain or gzipped): the input is an images file; the labels file beside it holds as many
// labels as the input's first dimension claims (up to 4096), so the counts often agree and the
// fuzzer reaches the pixel data.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/data/idx_dataset.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "tests/fuzz/fuzz_message.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::uint32_t count = 1;
  if (size >= 8)
    count = (std::uint32_t{data[4]} << 24) | (data[5] << 16) | (data[6] << 8) | data[7];
  count = std::min<std::uint32_t>(count, 4096);
  std::vector<std::uint8_t> labels{0,
                                   0,
                                   8,
                                   1,
                                   static_cast<std::uint8_t>(count >> 24),
                                   static_cast<std::uint8_t>(count >> 16),
                                   static_cast<std::uint8_t>(count >> 8),
                                   static_cast<std::uint8_t>(count)};
  for (std::uint32_t i = 0; i < count; ++i) labels.push_back(static_cast<std::uint8_t>(i % 10));
  const std::string labels_path =
      kiln::fuzz::write_input("labels.idx", labels.data(), labels.size());
  const std::string images_path = kiln::fuzz::write_input("images.idx", data, size);
  try {
    const kiln::IdxDataset dataset(images_path, labels_path);
    kiln::fuzz::read_last_sample(dataset);
  } catch (const kiln::Error& e) {
    kiln::fuzz::check_message(e);
  }
  return 0;
}
