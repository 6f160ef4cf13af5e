// IdxDataset: the real Fashion-MNIST from Debian's package, and each bad file a clear error that
// names the file and what is wrong.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "kiln/core/error.h"
#include "kiln/data/idx_dataset.h"
#include "tests/support/error_testing.h"

namespace fs = std::filesystem;
using kiln::IdxDataset;

namespace {

fs::path temp_folder(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("kiln_idx_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::uint8_t> idx_bytes(std::uint8_t type, const std::vector<std::uint32_t>& dims,
                                    const std::vector<std::uint8_t>& data) {
  std::vector<std::uint8_t> out{0, 0, type, static_cast<std::uint8_t>(dims.size())};
  for (std::uint32_t d : dims)
    for (int shift : {24, 16, 8, 0}) out.push_back(static_cast<std::uint8_t>(d >> shift));
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::string write(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  if (path.extension() == ".gz") {
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(f);
  } else {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
  return path.string();
}

// Three 2x3 images with pixels 0, 10, 20, ... and labels 4, 0, 9.
std::vector<std::uint8_t> images3() {
  std::vector<std::uint8_t> pixels(18);
  for (int k = 0; k < 18; ++k) pixels[k] = static_cast<std::uint8_t>(k * 10);
  return idx_bytes(0x08, {3, 2, 3}, pixels);
}
std::vector<std::uint8_t> labels(std::vector<std::uint8_t> values) {
  return idx_bytes(0x08, {static_cast<std::uint32_t>(values.size())}, values);
}

using kiln::testing::error_message;

#define EXPECT_HAS(message, part) EXPECT_NE((message).find(part), std::string::npos) << (message)

}  // namespace

TEST(IdxDataset, ReadsTheRealFashionMnist) {
  if (!fs::exists(kiln::kFashionMnistFolder))
    GTEST_SKIP() << "Debian's dataset-fashion-mnist is not installed";
  const auto train = kiln::fashion_mnist(kiln::Split::train);
  EXPECT_EQ(train->size(), 60000);
  EXPECT_EQ(train->sample_shape(), (kiln::Shape{1, 28, 28}));
  EXPECT_EQ(train->num_classes(), 10);
  EXPECT_EQ(train->label(0), 9);  // the first training image is an ankle boot
  EXPECT_HAS(train->describe(),
             "Fashion-MNIST train (60000 x (1, 28, 28)) from /usr/share/datasets/fashion-mnist");
  std::vector<float> x(784);
  std::int32_t y = -1;
  train->get(0, x.data(), &y);
  EXPECT_EQ(y, 9);
  EXPECT_GE(*std::min_element(x.begin(), x.end()), 0.0f);
  EXPECT_EQ(*std::max_element(x.begin(), x.end()), 1.0f);
  std::vector<int> counts(10, 0);
  for (std::int64_t i = 0; i < train->size(); ++i)
    ++counts[static_cast<std::size_t>(train->label(i))];
  for (int c : counts) EXPECT_EQ(c, 6000) << "Fashion-MNIST is balanced";

  const auto test = kiln::fashion_mnist(kiln::Split::test, kiln::kFashionMnistFolder);
  EXPECT_EQ(test->size(), 10000);
  EXPECT_EQ(test->label(0), 9);
}

TEST(IdxDataset, ReadsPlainAndGzippedFilesAlike) {
  const fs::path dir = temp_folder("plain_gz");
  const IdxDataset plain(write(dir / "img", images3()), write(dir / "lab", labels({4, 0, 9})));
  const IdxDataset gz(write(dir / "img.gz", images3()), write(dir / "lab.gz", labels({4, 0, 9})));
  ASSERT_EQ(plain.size(), 3);
  EXPECT_EQ(plain.sample_shape(), (kiln::Shape{1, 2, 3}));
  for (std::int64_t i = 0; i < 3; ++i) {
    std::vector<float> a(6), b(6);
    std::int32_t ya = -1, yb = -1;
    plain.get(i, a.data(), &ya);
    gz.get(i, b.data(), &yb);
    EXPECT_EQ(a, b);
    EXPECT_EQ(ya, yb);
    EXPECT_FLOAT_EQ(a[1], static_cast<float>(i * 60 + 10) / 255.0f);
  }
  std::vector<float> x(6);
  std::int32_t y;
  plain.get(2, x.data(), &y);
  EXPECT_EQ(y, 9);
  EXPECT_THROW(plain.get(3, x.data(), &y), kiln::Error);
}

TEST(IdxDataset, AMissingFashionMnistSaysWhatToInstall) {
  const fs::path dir = temp_folder("missing");
  const std::string message =
      error_message([&] { kiln::fashion_mnist(kiln::Split::train, dir.string()); });
  EXPECT_HAS(message, "train-images-idx3-ubyte");
  EXPECT_HAS(message, dir.string());
  EXPECT_HAS(message, "install Debian's dataset-fashion-mnist");
}

TEST(IdxDataset, AMissingFileIsNamed) {
  const fs::path dir = temp_folder("missing_file");
  const std::string labels_path = write(dir / "lab", labels({1, 2, 3}));
  const std::string message =
      error_message([&] { IdxDataset((dir / "nope").string(), labels_path); });
  EXPECT_HAS(message, (dir / "nope").string());
  EXPECT_HAS(message, "does not exist");
}

TEST(IdxDataset, AWrongMagicNumberIsNamed) {
  const fs::path dir = temp_folder("magic");
  const std::string lab = write(dir / "lab", labels({1, 2, 3}));
  // Labels where images belong: 0x00000801 instead of 0x00000803.
  std::string message = error_message([&] { IdxDataset(lab, lab); });
  EXPECT_HAS(message, lab);
  EXPECT_HAS(message, "magic number 0x00000801, expected 0x00000803");
  const std::string text = write(dir / "text.txt", {'h', 'e', 'l', 'l', 'o', '!', '!', '!'});
  message = error_message([&] { IdxDataset(text, lab); });
  EXPECT_HAS(message, text);
  EXPECT_HAS(message, "is not an IDX file");
}

TEST(IdxDataset, ATruncatedFileIsNamed) {
  const fs::path dir = temp_folder("truncated");
  const std::string lab = write(dir / "lab", labels({1, 2, 3}));
  auto short_images = images3();
  short_images.resize(short_images.size() - 8);
  for (const char* name : {"img", "img.gz"}) {
    const std::string img = write(dir / name, short_images);
    const std::string message = error_message([&] { IdxDataset(img, lab); });
    EXPECT_HAS(message, img);
    EXPECT_HAS(message, "is truncated: its header promises 18 bytes of data, found 10");
  }
  const std::string tiny = write(dir / "tiny", {0, 0});
  EXPECT_HAS(error_message([&] { IdxDataset(tiny, lab); }), tiny + " is truncated");
}

TEST(IdxDataset, ImageAndLabelCountsThatDifferAreNamed) {
  const fs::path dir = temp_folder("counts");
  const std::string img = write(dir / "img", images3());
  const std::string lab = write(dir / "lab", labels({1, 2, 3, 4}));
  const std::string message = error_message([&] { IdxDataset(img, lab); });
  EXPECT_HAS(message, img + " holds 3 images but " + lab + " holds 4 labels");
}

TEST(IdxDataset, ALabelOutOfRangeNamesTheSampleAndFile) {
  const fs::path dir = temp_folder("range");
  const std::string img = write(dir / "img", images3());
  const std::string lab = write(dir / "lab", labels({1, 12, 3}));
  const std::string message = error_message([&] { IdxDataset(img, lab); });
  EXPECT_HAS(message, "labels must be in [0, 10): found 12 at sample 1 of " + lab);
}

TEST(IdxDataset, SplitsParseByName) {
  EXPECT_EQ(kiln::parse_split("train"), kiln::Split::train);
  EXPECT_EQ(kiln::parse_split("test"), kiln::Split::test);
  EXPECT_HAS(error_message([] { kiln::parse_split("valid"); }), "unknown split 'valid'");
}

TEST(IdxDataset, DimensionsWhoseProductWrapsAreADamagedHeader) {
  const fs::path dir = temp_folder("wrap");
  const std::string lab = write(dir / "lab", labels({1, 2, 3}));
  // 2^16 * 2^20 * 2^28 = 2^64: wrapped to 0, it passed the old damaged-header guard.
  const std::string img = write(dir / "img", idx_bytes(0x08, {65536, 1048576, 268435456}, {1, 2}));
  EXPECT_HAS(error_message([&] { IdxDataset(img, lab); }),
             img + " claims dimensions 65536 x 1048576 x 268435456, more than the");
}

TEST(IdxDataset, EmptyFilesAndZeroSizedImagesAreNamed) {
  const fs::path dir = temp_folder("zero");
  const std::string lab = write(dir / "lab", labels({1, 2, 3}));
  const std::string none = write(dir / "none", idx_bytes(0x08, {0, 28, 28}, {}));
  EXPECT_HAS(error_message([&] { IdxDataset(none, lab); }),
             none + " holds no images: dimension 0 of its IDX header is 0");
  const std::string flat = write(dir / "flat", idx_bytes(0x08, {3, 0, 28}, {}));
  EXPECT_HAS(error_message([&] { IdxDataset(flat, lab); }),
             flat + " holds no images: dimension 1 of its IDX header is 0");
  const std::string img = write(dir / "img", images3());
  const std::string no_labels = write(dir / "nolab", labels({}));
  EXPECT_HAS(error_message([&] { IdxDataset(img, no_labels); }),
             no_labels + " holds no labels: dimension 0");
}
