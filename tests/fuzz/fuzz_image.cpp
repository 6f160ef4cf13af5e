// PNG and JPEG, decoded to gray and to RGB as the image folders do.
#include <cstdint>

#include "kiln/core/error.h"
#include "kiln/data/image_io.h"
#include "tests/fuzz/fuzz_message.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (int channels : {1, 3}) {
    try {
      const kiln::Image8 image = kiln::decode_image(data, size, channels, "fuzz-image");
      if (image.pixels.size() != static_cast<std::size_t>(image.height * image.width * channels))
        __builtin_trap();  // a decoded image must hold exactly its pixels
    } catch (const kiln::Error& e) {
      kiln::fuzz::check_message(e);
    }
  }
  return 0;
}
