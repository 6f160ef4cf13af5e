// The .npy header is parsed by looking up its three keys in the dict literal rather than by a
// Python parser: NumPy always writes them, in this form ({'descr': '<f4', 'fortran_order': False,
// 'shape': (3, 4), }), and anything else is rejected with the header quoted.
#include "kiln/data/npy_file.h"

#include <bit>
#include <cstring>
#include <new>

#include "kiln/core/checked_math.h"
#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"
#include "kiln/core/input_file.h"
#include "kiln/data/dataset.h"

namespace kiln {

namespace {

static_assert(std::endian::native == std::endian::little,
              "the .npy reader assumes a little-endian host");

// NumPy 2 makes arrays of at most 64 dimensions; a longer shape is a damaged header, and would
// make every message that shows the shape as long as the header.
constexpr std::size_t kMaxRank = 64;

// The text after 'key': in the header, or throws.
std::string_view value_of(std::string_view header, const char* key, const std::string& path) {
  const std::string quoted = fmt::format("'{}':", key);
  const std::size_t at = header.find(quoted);
  KILN_CHECK(at != std::string_view::npos, "{}: the .npy header has no '{}': {}", path, key,
             excerpt(header));
  std::string_view rest = header.substr(at + quoted.size());
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return rest;
}

std::vector<std::int64_t> parse_shape(std::string_view text, const std::string& path,
                                      std::string_view header) {
  KILN_CHECK(!text.empty() && text.front() == '(',
             "{}: cannot read the shape in the .npy header {}", path, excerpt(header));
  const std::size_t close = text.find(')');
  KILN_CHECK(close != std::string_view::npos, "{}: cannot read the shape in the .npy header {}",
             path, excerpt(header));
  std::vector<std::int64_t> shape;
  std::int64_t value = -1;
  for (char c : text.substr(1, close - 1)) {
    if (c >= '0' && c <= '9') {
      const std::int64_t digits = value < 0 ? 0 : value;
      KILN_CHECK(digits <= (INT64_MAX - 9) / 10,
                 "{}: an extent in the .npy header's shape passes 2^63: {}", path, excerpt(header));
      value = digits * 10 + (c - '0');
    } else if (c == ',') {
      KILN_CHECK(value >= 0, "{}: cannot read the shape in the .npy header {}", path,
                 excerpt(header));
      KILN_CHECK(shape.size() < kMaxRank,
                 "{}: the .npy header's shape has more than {} dimensions (NumPy's limit): {}",
                 path, kMaxRank, excerpt(header));
      shape.push_back(value);
      value = -1;
    } else {
      KILN_CHECK(c == ' ' || c == 'L', "{}: cannot read the shape in the .npy header {}", path,
                 excerpt(header));
    }
  }
  if (value >= 0) shape.push_back(value);
  KILN_CHECK(shape.size() <= kMaxRank,
             "{}: the .npy header's shape has more than {} dimensions (NumPy's limit): {}", path,
             kMaxRank, excerpt(header));
  return shape;
}

}  // namespace

std::size_t npy_item_size(const std::string& d) {
  if (d == "<f4") return 4;
  if (d == "<f8") return 8;
  if (d == "|u1" || d == "<u1" || d == "|i1" || d == "<i1" || d == "|b1") return 1;
  if (d == "<i2" || d == "<u2") return 2;
  if (d == "<i4" || d == "<u4") return 4;
  if (d == "<i8" || d == "<u8") return 8;
  return 0;
}

bool npy_is_integer(const std::string& d) { return npy_item_size(d) != 0 && d[1] != 'f'; }

std::int64_t NpyArray::numel() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

double NpyArray::at(std::int64_t i) const {
  const std::size_t size = npy_item_size(descr);
  KILN_CHECK(size != 0, "{}: unsupported dtype {}", path, excerpt(descr));
  const std::uint8_t* p = bytes.data() + static_cast<std::size_t>(i) * size;
  auto load = [p](auto value) {
    std::memcpy(&value, p, sizeof value);
    return static_cast<double>(value);
  };
  switch (descr[1]) {
    case 'f': return size == 4 ? load(float{}) : load(double{});
    case 'b': return load(std::uint8_t{});
    case 'u':
      if (size == 1) return load(std::uint8_t{});
      if (size == 2) return load(std::uint16_t{});
      return size == 4 ? load(std::uint32_t{}) : load(std::uint64_t{});
    default:
      if (size == 1) return load(std::int8_t{});
      if (size == 2) return load(std::int16_t{});
      return size == 4 ? load(std::int32_t{}) : load(std::int64_t{});
  }
}

NpyArray read_npy(const std::string& path) {
  const InputFile file(path, ".npy file");  // a regular file only: /dev/zero would never end
  check_fits_in_memory(file.size(), path);
  const std::string data = file.read_all();
  try {
    return parse_npy({reinterpret_cast<const std::uint8_t*>(data.data()), data.size()}, path);
  } catch (const std::bad_alloc&) {
    KILN_THROW(".npy file {}: out of memory for a copy of its {} bytes", path, data.size());
  }
}

NpyArray parse_npy(std::span<const std::uint8_t> data, const std::string& path) {
  static constexpr std::uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  KILN_CHECK(data.size() >= 10 && std::memcmp(data.data(), kMagic, 6) == 0,
             "{} is not a NumPy .npy file: it does not start with \\x93NUMPY", path);
  const int major = data[6];
  KILN_CHECK(major >= 1 && major <= 3,
             "{}: .npy format version {}.{} is not supported (1, 2 and 3 are)", path, major,
             data[7]);
  const std::size_t prefix = major == 1 ? 10 : 12;
  KILN_CHECK(data.size() >= prefix, "{} is truncated inside the .npy header", path);
  const std::size_t header_len =
      major == 1 ? (data[8] | (std::size_t{data[9]} << 8))
                 : (data[8] | (std::size_t{data[9]} << 8) | (std::size_t{data[10]} << 16) |
                    (std::size_t{data[11]} << 24));
  KILN_CHECK(data.size() >= prefix + header_len, "{} is truncated inside the .npy header", path);
  const std::string_view header(reinterpret_cast<const char*>(data.data()) + prefix, header_len);

  NpyArray array;
  array.path = path;
  const std::string_view descr = value_of(header, "descr", path);
  const std::size_t end = descr.find('\'', 1);
  KILN_CHECK(descr.size() > 2 && descr.front() == '\'' && end != std::string_view::npos,
             "{}: cannot read the dtype in the .npy header {}", path, excerpt(header));
  array.descr = std::string(descr.substr(1, end - 1));
  const std::string_view fortran = value_of(header, "fortran_order", path);
  KILN_CHECK(fortran.starts_with("False"),
             "{}: arrays in Fortran order (fortran_order: True) are not supported; "
             "save with np.save(path, np.ascontiguousarray(a))",
             path);
  array.shape = parse_shape(value_of(header, "shape", path), path, header);
  const std::size_t item = npy_item_size(array.descr);
  KILN_CHECK(
      item != 0,
      "{}: dtype {} is not supported: use float32 ('<f4'), float64 ('<f8'), uint8 ('|u1') or a "
      "little-endian integer type",
      path, excerpt(array.descr));
  const auto numel = checked_product(array.shape);
  const auto need_bytes = numel ? checked_mul(*numel, static_cast<std::int64_t>(item)) : numel;
  KILN_CHECK(need_bytes.has_value(),
             "{}: shape ({}) of {} needs more than 2^63 bytes: a damaged .npy header?", path,
             fmt::join(array.shape, ", "), excerpt(array.descr));
  const auto need = static_cast<std::size_t>(*need_bytes);
  const std::size_t have = data.size() - prefix - header_len;
  KILN_CHECK(have >= need, "{} is truncated: shape ({}) of {} needs {} bytes of data, found {}",
             path, fmt::join(array.shape, ", "), excerpt(array.descr), need, have);
  array.bytes.assign(data.begin() + static_cast<std::ptrdiff_t>(prefix + header_len),
                     data.begin() + static_cast<std::ptrdiff_t>(prefix + header_len + need));
  return array;
}

}  // namespace kiln
