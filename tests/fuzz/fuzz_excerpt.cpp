// excerpt() itself, on any bytes and any bound (the first input byte): bounded, printable, and
// the text itself when nothing needed escaping or cutting.
#include <cstdint>
#include <string>
#include <string_view>

#include "kiln/core/excerpt.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t bound = data[0];
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string shown = kiln::excerpt(bytes, bound);
  if (shown.size() > 4 * bound + 40 || !kiln::is_plain_text(shown)) __builtin_trap();
  if (kiln::is_plain_text(bytes) && bytes.size() <= bound &&
      shown != "'" + std::string(bytes) + "'")
    __builtin_trap();
  return 0;
}
