// Reading and writing 8-bit images: PNG through libpng's simplified API, JPEG through
// libjpeg-turbo. A file's format is recognised by its first bytes, not by its name. Every
// failure is a kiln::Error naming the file and what the decoder said.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

// Pixels interleaved row by row: (height, width, channels), 1 = gray, 3 = RGB.
struct Image8 {
  std::int64_t height = 0;
  std::int64_t width = 0;
  int channels = 0;
  std::vector<std::uint8_t> pixels;
};

// Decodes a PNG or JPEG file, converted to `channels` (1 or 3) whatever the file holds (alpha is
// composited onto black). Throws kiln::Error naming the file when it cannot be read or decoded.
Image8 read_image(const std::string& path, int channels);
// The same from bytes in memory; `name` is used in error messages.
Image8 decode_image(const std::uint8_t* data, std::size_t size, int channels,
                    const std::string& name);

void write_png(const std::string& path, const Image8& image);
void write_jpeg(const std::string& path, const Image8& image, int quality = 95);

}  // namespace kiln
