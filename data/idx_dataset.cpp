// Reading IDX files through zlib's gzread, which reads gzipped and plain files alike. An IDX file
// is a 4-byte magic (0, 0, element type, number of dimensions), one big-endian uint32 per
// dimension, then the elements in row-major order; MNIST uses unsigned bytes (type 0x08).
#include "kiln/data/idx_dataset.h"

#include <zlib.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "kiln/core/checked_math.h"
#include "kiln/core/error.h"
#include "kiln/core/input_file.h"

namespace kiln {

namespace {

constexpr std::uint8_t kUnsignedByte = 0x08;
constexpr std::size_t kMaxBytes = std::size_t{1} << 36;

struct IdxArray {
  std::vector<std::int64_t> dims;
  std::vector<std::uint8_t> bytes;
};

class GzFile {
 public:
  explicit GzFile(const std::string& path) : path_(path) {
    std::error_code ec;
    KILN_CHECK(std::filesystem::exists(path, ec), "IDX file {} does not exist", path);
    { const InputFile regular(path, "IDX file"); }  // refuses a FIFO, a device or a folder by name
    file_ = gzopen(path.c_str(), "rb");
    KILN_CHECK(file_ != nullptr, "cannot open IDX file {}", path);
    gzbuffer(file_, 1 << 20);
  }
  ~GzFile() {
    if (file_ != nullptr) gzclose(file_);
  }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  // Reads up to `n` bytes; returns how many came (fewer at the end of the file).
  std::size_t read(void* out, std::size_t n) {
    std::size_t done = 0;
    while (done < n) {
      const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(n - done, 1u << 30));
      const int got = gzread(file_, static_cast<char*>(out) + done, chunk);
      if (got < 0) {
        int code = 0;
        const char* message = gzerror(file_, &code);
        KILN_THROW("cannot read IDX file {}: {} (a damaged .gz?)", path_, message);
      }
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
    }
    return done;
  }

 private:
  std::string path_;
  gzFile file_ = nullptr;
};

std::string magic_text(std::uint8_t type, int ndim) {
  return fmt::format("0x0000{:02x}{:02x}", type, ndim);
}

IdxArray read_idx(const std::string& path, int expected_ndim, const char* what) {
  GzFile file(path);
  std::uint8_t magic[4] = {};
  const std::size_t got = file.read(magic, 4);
  KILN_CHECK(got == 4, "{} is truncated: it ends after {} bytes, inside the 4-byte IDX magic", path,
             got);
  const std::uint32_t found = (std::uint32_t{magic[0]} << 24) | (std::uint32_t{magic[1]} << 16) |
                              (std::uint32_t{magic[2]} << 8) | magic[3];
  KILN_CHECK(
      magic[0] == 0 && magic[1] == 0 && magic[2] == kUnsignedByte && magic[3] == expected_ndim,
      "{} is not an IDX file of {}: magic number 0x{:08x}, expected {} (unsigned bytes, {} "
      "dimension{})",
      path, what, found, magic_text(kUnsignedByte, expected_ndim), expected_ndim,
      expected_ndim == 1 ? "" : "s");
  IdxArray array;
  for (int d = 0; d < expected_ndim; ++d) {
    std::uint8_t b[4] = {};
    KILN_CHECK(file.read(b, 4) == 4, "{} is truncated: it ends inside the size of dimension {}",
               path, d);
    const std::int64_t extent =
        (std::int64_t{b[0]} << 24) | (std::int64_t{b[1]} << 16) | (std::int64_t{b[2]} << 8) | b[3];
    KILN_CHECK(extent >= 1, "{} holds no {}: dimension {} of its IDX header is 0", path, what, d);
    array.dims.push_back(extent);
  }
  // Three 32-bit extents can pass 64 bits; a damaged header must give an error, not an attempt
  // to allocate terabytes (or a product wrapped to a small number).
  const auto product = checked_product(array.dims);
  KILN_CHECK(product && static_cast<std::size_t>(*product) <= kMaxBytes,
             "{} claims dimensions {}, more than the {} bytes an IDX file may hold here: a damaged "
             "IDX header?",
             path, fmt::join(array.dims, " x "), kMaxBytes);
  const auto total = static_cast<std::size_t>(*product);
  check_fits_in_memory(total,
                       fmt::format("{} (dimensions {})", path, fmt::join(array.dims, " x ")));
  // Grown as the data arrives, so a header that promises more than the file holds ends in the
  // truncation error below, not in allocating what it promised.
  constexpr std::size_t kChunk = std::size_t{1} << 24;
  std::size_t read = 0;
  while (read < total) {
    array.bytes.resize(std::min(total, read + kChunk));
    const std::size_t got = file.read(array.bytes.data() + read, array.bytes.size() - read);
    read += got;
    if (read < array.bytes.size()) break;  // the end of the file
  }
  KILN_CHECK(read == total, "{} is truncated: its header promises {} bytes of data, found {}", path,
             total, read);
  return array;
}

std::string find_file(const std::filesystem::path& folder, const std::string& stem) {
  for (const char* suffix : {"", ".gz"}) {
    const std::filesystem::path path = folder / (stem + suffix);
    if (std::filesystem::is_regular_file(path)) return path.string();
  }
  KILN_THROW(
      "Fashion-MNIST file {} (or {}.gz) not found in {}: install Debian's "
      "dataset-fashion-mnist package or pass the folder that holds the files",
      stem, stem, folder.string());
}

}  // namespace

IdxDataset::IdxDataset(const std::string& images_path, const std::string& labels_path,
                       std::int32_t num_classes, std::string name)
    : images_path_(images_path), labels_path_(labels_path), name_(std::move(name)),
      num_classes_(num_classes) {
  KILN_CHECK(num_classes >= 1 && num_classes <= 256,
             "an IDX data set needs 1 to 256 classes, found {}", num_classes);
  IdxArray images = read_idx(images_path, 3, "images");
  IdxArray labels = read_idx(labels_path, 1, "labels");
  KILN_CHECK(images.dims[0] == labels.dims[0], "{} holds {} images but {} holds {} labels",
             images_path, images.dims[0], labels_path, labels.dims[0]);
  count_ = images.dims[0];
  rows_ = images.dims[1];
  cols_ = images.dims[2];
  for (std::int64_t i = 0; i < count_; ++i) {
    const int label = labels.bytes[static_cast<std::size_t>(i)];
    KILN_CHECK(label < num_classes, "labels must be in [0, {}): found {} at sample {} of {}",
               num_classes, label, i, labels_path);
  }
  pixels_ = std::move(images.bytes);
  labels_ = std::move(labels.bytes);
}

void IdxDataset::get(std::int64_t index, float* x_out, TargetOut y_out) const {
  check_sample_index(*this, index);
  const std::uint8_t* pixels = image_bytes(index);
  const std::int64_t n = rows_ * cols_;
  for (std::int64_t k = 0; k < n; ++k) x_out[k] = static_cast<float>(pixels[k]) * (1.0f / 255.0f);
  *y_out.label() = label(index);
}

const std::uint8_t* IdxDataset::image_bytes(std::int64_t index) const {
  return pixels_.data() + static_cast<std::size_t>(index * rows_ * cols_);
}

std::int32_t IdxDataset::label(std::int64_t index) const {
  return labels_[static_cast<std::size_t>(index)];
}

std::string IdxDataset::describe() const {
  return fmt::format("{} ({} x {}) from {}", name_, count_, sample_shape().str(), images_path_);
}

std::string split_name(Split split) { return split == Split::train ? "train" : "test"; }

Split parse_split(const std::string& text) {
  if (text == "train") return Split::train;
  if (text == "test" || text == "t10k") return Split::test;
  KILN_THROW("unknown split '{}': expected train or test", text);
}

std::shared_ptr<IdxDataset> fashion_mnist(Split split, const std::string& folder) {
  const std::filesystem::path dir = folder.empty() ? kFashionMnistFolder : folder;
  const std::string prefix = split == Split::train ? "train" : "t10k";
  const std::string images = find_file(dir, prefix + "-images-idx3-ubyte");
  const std::string labels = find_file(dir, prefix + "-labels-idx1-ubyte");
  return std::make_shared<IdxDataset>(images, labels, 10, "Fashion-MNIST " + split_name(split));
}

const std::vector<std::string>& fashion_mnist_class_names() {
  static const std::vector<std::string> names{"T-shirt/top", "Trouser",   "Pullover", "Dress",
                                              "Coat",        "Sandal",    "Shirt",    "Sneaker",
                                              "Bag",         "Ankle boot"};
  return names;
}

}  // namespace kiln
