// Reading NumPy .npy files (format versions 1, 2 and 3): the magic "\x93NUMPY", a version, a
// little-endian header length (2 bytes in v1, 4 in v2/v3), a Python dict literal with 'descr',
// 'fortran_order' and 'shape', then the raw elements. Only what a data set needs: C order,
// little-endian (or single-byte) numbers.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kiln {

struct NpyArray {
  std::string path;
  std::string descr;  // e.g. "<f4", "|u1"
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> bytes;  // the elements, C order

  std::int64_t numel() const;
  // Element i converted to double; throws kiln::Error naming the file for an unsupported descr.
  double at(std::int64_t i) const;
};

// Throws kiln::Error naming the file: not an .npy file, an unsupported version, a header that
// cannot be parsed, fortran_order True, an unsupported dtype, or fewer bytes than the shape needs.
NpyArray read_npy(const std::string& path);
// The same from the bytes of a whole file; `path` names it in error messages.
NpyArray parse_npy(std::span<const std::uint8_t> bytes, const std::string& path);

// Size in bytes of one element of a supported descr, 0 if not supported.
std::size_t npy_item_size(const std::string& descr);
bool npy_is_integer(const std::string& descr);

}  // namespace kiln
