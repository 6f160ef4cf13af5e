// safetensors: the header is validated, then every tensor's bytes are copied as load_safetensors
// copies them; an offset the validation let through past the data is an ASan report here.
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/io/safetensors_header.h"
#include "tests/fuzz/fuzz_message.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const kiln::SafetensorsHeader header =
        kiln::parse_safetensors_header(bytes, "fuzz.safetensors");
    for (const kiln::SafetensorsEntry& e : header.entries) {
      std::vector<char> copy(e.end - e.begin);
      if (!copy.empty())
        std::memcpy(copy.data(), bytes.data() + header.data_start + e.begin, copy.size());
    }
  } catch (const kiln::Error& e) {
    kiln::fuzz::check_message(e);
  }
  return 0;
}
