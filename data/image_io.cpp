// PNG and JPEG codecs. libjpeg reports errors by longjmp, which must not cross a C++ object with
// a destructor: the functions that call setjmp (jpeg_decode, jpeg_encode) keep only trivially
// destructible locals, write through pointers, and return an error text for the caller to throw.
#include "kiln/data/image_io.h"

#include <csetjmp>
#include <cstdio>  // before jpeglib.h, which uses FILE without including it
#include <cstring>

#include <jerror.h>  // after jpeglib.h: the message codes
#include <jpeglib.h>
#include <png.h>

#include <algorithm>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"
#include "kiln/core/input_file.h"
#include "kiln/core/output_file.h"

namespace kiln {

namespace {

// The largest image decoded, in bytes of pixels: a header may claim up to 2^31 x 2^31 pixels,
// and the buffer is allocated before the first row is read.
constexpr std::uint64_t kMaxImageBytes = std::uint64_t{1} << 28;

// Writes why (height, width, channels) cannot be decoded into `text` and returns it: an empty
// image, or one larger than kMaxImageBytes. Returns nullptr when the size is fine. No std::string:
// jpeg_decode calls it between setjmp and a possible longjmp.
const char* size_problem(std::uint64_t height, std::uint64_t width, int channels, char* text,
                         std::size_t size) {
  const auto channel_count = static_cast<std::uint64_t>(channels);
  if (height > 0 && width > 0 && height * width * channel_count <= kMaxImageBytes) return nullptr;
  const auto end = height == 0 || width == 0
                       ? fmt::format_to_n(text, size - 1, "it claims {} x {} pixels", height, width)
                       : fmt::format_to_n(text, size - 1,
                                          "it claims {} x {} pixels x {} channel(s), more than the "
                                          "{} MiB of pixels kiln decodes (a damaged file?)",
                                          height, width, channels, kMaxImageBytes >> 20);
  *end.out = '\0';
  return text;
}

// Writes the error for a header that claims more pixels than `size` bytes of file can encode
// into `text` and returns it.
const char* more_than_the_file_holds(std::uint64_t height, std::uint64_t width, std::size_t size,
                                     char* text, std::size_t text_size) {
  *fmt::format_to_n(text, text_size - 1,
                    "it claims {} x {} pixels, more than its {} bytes can hold (a truncated or "
                    "damaged file?)",
                    height, width, size)
       .out = '\0';
  return text;
}

struct JpegErrors {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  bool truncated;
};

void jpeg_on_error(j_common_ptr info) {
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  (*info->err->format_message)(info, errors->message);
  std::longjmp(errors->jump, 1);
}

// Warnings are not printed; a premature end of the data is an error, as in PIL.
void jpeg_on_message(j_common_ptr info, int level) {
  if (level < 0 && info->err->msg_code == JWRN_JPEG_EOF)
    reinterpret_cast<JpegErrors*>(info->err)->truncated = true;
}

JpegErrors* init_errors(JpegErrors* errors) {
  jpeg_std_error(&errors->manager);
  errors->manager.error_exit = jpeg_on_error;
  errors->manager.emit_message = jpeg_on_message;
  errors->message[0] = '\0';
  errors->truncated = false;
  return errors;
}

// Returns nullptr on success, else the decoder's message (in errors->message).
const char* jpeg_decode(const std::uint8_t* data, std::size_t size, int channels, Image8* out,
                        JpegErrors* errors) {
  jpeg_decompress_struct info;
  info.err = &init_errors(errors)->manager;
  if (setjmp(errors->jump)) {
    jpeg_destroy_decompress(&info);
    return errors->message;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, data, static_cast<unsigned long>(size));
  jpeg_read_header(&info, TRUE);
  info.out_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  // Checked before the buffer is allocated; libjpeg limits each side to 65500, not the product.
  if (size_problem(info.image_height, info.image_width, channels, errors->message,
                   sizeof errors->message) != nullptr) {
    jpeg_destroy_decompress(&info);
    return errors->message;
  }
  // Huffman coding spends at least one bit on each 8 x 8 block's DC value (arithmetic coding
  // has no such floor): a short file claiming a large image fails here, not after allocating.
  const std::uint64_t blocks =
      (std::uint64_t{info.image_width} + 7) / 8 * ((std::uint64_t{info.image_height} + 7) / 8);
  if (!info.arith_code && blocks > 8 * std::uint64_t{size}) {
    more_than_the_file_holds(info.image_height, info.image_width, size, errors->message,
                             sizeof errors->message);
    jpeg_destroy_decompress(&info);
    return errors->message;
  }
  jpeg_start_decompress(&info);
  out->width = info.output_width;
  out->height = info.output_height;
  out->channels = info.output_components;
  // The buffer grows with the rows decoded and decoding stops at the end of the data, so a
  // short file claiming a large image costs what it holds, not what it claims.
  const auto row_bytes = static_cast<std::size_t>(out->width * out->channels);
  out->pixels.clear();
  out->pixels.reserve(std::min<std::size_t>(row_bytes * info.output_height, 64 * row_bytes));
  while (info.output_scanline < info.output_height && !errors->truncated) {
    out->pixels.resize(out->pixels.size() + row_bytes);
    JSAMPROW row = out->pixels.data() + static_cast<std::size_t>(info.output_scanline) * row_bytes;
    jpeg_read_scanlines(&info, &row, 1);
  }
  if (errors->truncated) {
    jpeg_destroy_decompress(&info);
    return "premature end of the JPEG data (a truncated file?)";
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return errors->truncated ? "premature end of the JPEG data (a truncated file?)" : nullptr;
}

const char* jpeg_encode(const Image8* image, int quality, unsigned char** buffer,
                        unsigned long* size, JpegErrors* errors) {
  jpeg_compress_struct info;
  info.err = &init_errors(errors)->manager;
  if (setjmp(errors->jump)) {
    jpeg_destroy_compress(&info);
    return errors->message;
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, buffer, size);
  info.image_width = static_cast<JDIMENSION>(image->width);
  info.image_height = static_cast<JDIMENSION>(image->height);
  info.input_components = image->channels;
  info.in_color_space = image->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < info.image_height) {
    auto* row =
        const_cast<JSAMPROW>(image->pixels.data() + static_cast<std::size_t>(info.next_scanline) *
                                                        image->width * image->channels);
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  return nullptr;
}

Image8 png_decode(const std::uint8_t* data, std::size_t size, int channels,
                  const std::string& name) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  KILN_CHECK(png_image_begin_read_from_memory(&image, data, size) != 0,
             "cannot decode PNG image {}: {}", shown_path(name), image.message);
  image.format = channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  char problem[200];
  if (size_problem(image.height, image.width, channels, problem, sizeof problem) != nullptr) {
    png_image_free(&image);
    KILN_THROW("cannot decode PNG image {}: {}", shown_path(name), problem);
  }
  // Deflate expands at most 1032 times, and a row holds at least a filter byte and one bit per
  // pixel: a header claiming more than the file can hold is refused before the buffer is made.
  const std::uint64_t least_raw =
      std::uint64_t{image.height} * (1 + (std::uint64_t{image.width} + 7) / 8);
  if (least_raw > 1032 * std::uint64_t{size} + 4096) {
    png_image_free(&image);
    KILN_THROW("cannot decode PNG image {}: {}", shown_path(name),
               more_than_the_file_holds(image.height, image.width, size, problem, sizeof problem));
  }
  Image8 out{image.height, image.width, channels, std::vector<std::uint8_t>(PNG_IMAGE_SIZE(image))};
  const int ok = png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr);
  if (ok == 0) {
    const std::string message = image.message;
    png_image_free(&image);
    KILN_THROW("cannot decode PNG image {}: {}", shown_path(name), message);
  }
  return out;
}

void check_image(const Image8& image, const std::string& path) {
  KILN_CHECK(image.channels == 1 || image.channels == 3,
             "cannot write {}: images have 1 or 3 channels, found {}", path, image.channels);
  KILN_CHECK(image.height > 0 && image.width > 0 &&
                 image.pixels.size() ==
                     static_cast<std::size_t>(image.height * image.width * image.channels),
             "cannot write {}: {} x {} x {} pixels expected, found {}", path, image.height,
             image.width, image.channels, image.pixels.size());
}

}  // namespace

Image8 decode_image(const std::uint8_t* data, std::size_t size, int channels,
                    const std::string& name) {
  KILN_CHECK(channels == 1 || channels == 3,
             "images decode to 1 (gray) or 3 (RGB) channels, not {}", channels);
  static constexpr std::uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (size >= 8 && std::memcmp(data, kPng, 8) == 0) return png_decode(data, size, channels, name);
  if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) {
    Image8 out;
    JpegErrors errors;
    const char* error = jpeg_decode(data, size, channels, &out, &errors);
    KILN_CHECK(error == nullptr, "cannot decode JPEG image {}: {}", shown_path(name), error);
    KILN_CHECK(out.channels == channels, "cannot decode JPEG image {}: {} channels instead of {}",
               shown_path(name), out.channels, channels);
    return out;
  }
  KILN_THROW("cannot decode image {}: it is neither PNG nor JPEG ({} bytes, starting {:02x})",
             shown_path(name), size, fmt::join(data, data + std::min<std::size_t>(size, 4), " "));
}

Image8 read_image(const std::string& path, int channels) {
  const std::string bytes = read_input_file(path, "image");
  return decode_image(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), channels,
                      path);
}

void write_png(const std::string& path, const Image8& image) {
  check_image(image, path);
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = image.channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  // Encoded in memory, then written as every output is (core/output_file.h): not through a link.
  png_alloc_size_t size = 0;
  KILN_CHECK(
      png_image_write_to_memory(&png, nullptr, &size, 0, image.pixels.data(), 0, nullptr) != 0,
      "cannot write PNG image {}: {}", path, png.message);
  std::string bytes(size, '\0');
  KILN_CHECK(
      png_image_write_to_memory(&png, bytes.data(), &size, 0, image.pixels.data(), 0, nullptr) != 0,
      "cannot write PNG image {}: {}", path, png.message);
  bytes.resize(size);
  write_output_file(path, bytes, "the PNG image");
}

void write_jpeg(const std::string& path, const Image8& image, int quality) {
  check_image(image, path);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  JpegErrors errors;
  const char* error = jpeg_encode(&image, quality, &buffer, &size, &errors);
  const std::string message = error != nullptr ? error : "";
  const std::string bytes =
      error == nullptr ? std::string(reinterpret_cast<const char*>(buffer), size) : "";
  std::free(buffer);
  KILN_CHECK(message.empty(), "cannot write JPEG image {}: {}", path, message);
  write_output_file(path, bytes, "the JPEG image");
}

}  // namespace kiln
