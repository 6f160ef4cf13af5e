// ImageFolderDataset and the PNG/JPEG codecs: class folders become labels, pixels round-trip,
// bilinear resizing matches hand-computed values, and bad folders or images name themselves.
#include "kiln/data/image_folder_dataset.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <iterator>

#include "kiln/data/data_loader.h"
#include "kiln/data/image_io.h"
#include "tests/data/file_testing.h"

using kiln::Image8;
using kiln::ImageFolderDataset;
using kiln::ImageFolderOptions;
using kiln::testing::error_message;

namespace {
Image8 gradient(std::int64_t h, std::int64_t w, int channels) {
  Image8 image{h, w, channels,
               std::vector<std::uint8_t>(static_cast<std::size_t>(h * w * channels))};
  for (std::size_t k = 0; k < image.pixels.size(); ++k)
    image.pixels[k] = static_cast<std::uint8_t>(k * 7 % 256);
  return image;
}
// write_png into a folder made on the way.
void png(const std::filesystem::path& path, const Image8& image) {
  std::filesystem::create_directories(path.parent_path());
  kiln::write_png(path.string(), image);
}
}  // namespace

TEST(ImageIo, PngRoundTripsExactlyAndJpegClosely) {
  const auto dir = kiln::testing::fresh_folder("image_io");
  for (int channels : {1, 3}) {
    const Image8 image = gradient(5, 7, channels);
    kiln::write_png((dir / "a.png").string(), image);
    const Image8 back = kiln::read_image((dir / "a.png").string(), channels);
    EXPECT_EQ(back.height, 5);
    EXPECT_EQ(back.width, 7);
    EXPECT_EQ(back.pixels, image.pixels);
    Image8 flat{8, 8, channels,
                std::vector<std::uint8_t>(static_cast<std::size_t>(64 * channels), 90)};
    kiln::write_jpeg((dir / "a.jpg").string(), flat);
    const Image8 jpeg = kiln::read_image((dir / "a.jpg").string(), channels);
    ASSERT_EQ(jpeg.pixels.size(), flat.pixels.size());
    for (std::uint8_t p : jpeg.pixels) EXPECT_NEAR(p, 90, 2);
  }
  // A gray file read as RGB repeats the gray value in each channel.
  kiln::write_png((dir / "g.png").string(), gradient(2, 2, 1));
  const Image8 rgb = kiln::read_image((dir / "g.png").string(), 3);
  EXPECT_EQ(rgb.pixels[3], rgb.pixels[4]);
  EXPECT_EQ(rgb.pixels[4], rgb.pixels[5]);
}

TEST(ImageIo, UndecodableAndTruncatedImagesNameTheFile) {
  const auto dir = kiln::testing::fresh_folder("image_bad");
  const std::string garbage = kiln::testing::write_text(dir / "x.png", "definitely not an image");
  EXPECT_CONTAINS(error_message([&] { kiln::read_image(garbage, 1); }),
                  "cannot decode image " + garbage + ": it is neither PNG nor JPEG");
  kiln::write_png((dir / "ok.png").string(), gradient(16, 16, 1));
  std::ifstream in(dir / "ok.png", std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  bytes.resize(bytes.size() / 2);
  const std::string cut_png = kiln::testing::write_bytes(dir / "cut.png", bytes);
  EXPECT_CONTAINS(error_message([&] { kiln::read_image(cut_png, 1); }),
                  "cannot decode PNG image " + cut_png);
  kiln::write_jpeg((dir / "ok.jpg").string(), gradient(32, 32, 3));
  std::ifstream jin(dir / "ok.jpg", std::ios::binary);
  std::vector<std::uint8_t> jbytes((std::istreambuf_iterator<char>(jin)),
                                   std::istreambuf_iterator<char>());
  jbytes.resize(jbytes.size() / 2);
  const std::string cut_jpg = kiln::testing::write_bytes(dir / "cut.jpg", jbytes);
  EXPECT_CONTAINS(error_message([&] { kiln::read_image(cut_jpg, 3); }),
                  "cannot decode JPEG image " + cut_jpg);
  EXPECT_CONTAINS(error_message([&] { kiln::read_image((dir / "none.png").string(), 1); }),
                  "cannot open image");
}

TEST(ImageFolderDataset, ClassFoldersBecomeLabelsInSortedOrder) {
  const auto dir = kiln::testing::fresh_folder("folder_ok");
  png(dir / "dog" / "b.png", gradient(4, 6, 1));
  png(dir / "cat" / "z.png", gradient(4, 6, 1));
  png(dir / "dog" / "a.PNG", gradient(4, 6, 1));
  Image8 flat{4, 6, 1, std::vector<std::uint8_t>(24, 51)};
  std::filesystem::create_directories(dir / "cat");
  kiln::write_jpeg((dir / "cat" / "y.jpeg").string(), flat);
  kiln::testing::write_text(dir / "dog" / "notes.txt", "ignored");
  kiln::testing::write_text(dir / "README", "ignored");
  const ImageFolderDataset data(dir.string());
  EXPECT_EQ(data.class_names(), (std::vector<std::string>{"cat", "dog"}));
  EXPECT_EQ(data.size(), 4);
  EXPECT_EQ(data.sample_shape(), (kiln::Shape{1, 4, 6})) << "size taken from the first image";
  EXPECT_EQ(data.num_classes(), 2);
  std::vector<float> x(24);
  std::int32_t y;
  data.get(0, x.data(), &y);  // cat/y.jpeg
  EXPECT_EQ(y, 0);
  EXPECT_NEAR(x[10], 0.2f, 0.01f);
  data.get(3, x.data(), &y);  // dog/b.png
  EXPECT_EQ(y, 1);
  EXPECT_FLOAT_EQ(x[1], 7.0f / 255.0f);
  EXPECT_CONTAINS(data.path(2), "a.PNG");
  EXPECT_CONTAINS(data.describe(), "(4 x (1, 4, 6), 2 classes)");
}

TEST(ImageFolderDataset, ResizesBilinearlyAndNormalisesPerChannel) {
  const std::vector<std::uint8_t> in{0, 255, 255, 0};  // 2 x 2 gray
  std::vector<float> out(16);
  kiln::resize_normalize(in.data(), 2, 2, 1, out.data(), 4, 4, {0.0f}, {1.0f});
  // Half-pixel centres: output column 1 samples input x = 0.25, so 0.75 * 0 + 0.25 * 1.
  EXPECT_FLOAT_EQ(out[0], 0.0f);
  EXPECT_FLOAT_EQ(out[1], 0.25f);
  EXPECT_FLOAT_EQ(out[5], 0.25f * 0.75f + 0.75f * 0.25f + 0.0f);  // (0.25, 0.25): 0.375
  EXPECT_FLOAT_EQ(out[3], 1.0f);
  std::vector<float> one(1);
  kiln::resize_normalize(in.data(), 2, 2, 1, one.data(), 1, 1, {0.0f}, {1.0f});
  EXPECT_FLOAT_EQ(one[0], 0.5f);
  const std::vector<std::uint8_t> rgb{255, 0, 51};  // 1 x 1, interleaved
  std::vector<float> planes(3);
  kiln::resize_normalize(rgb.data(), 1, 1, 3, planes.data(), 1, 1, {0.5f, 0.0f, 0.2f},
                         {0.5f, 1.0f, 0.1f});
  EXPECT_FLOAT_EQ(planes[0], 1.0f);
  EXPECT_FLOAT_EQ(planes[1], 0.0f);
  EXPECT_NEAR(planes[2], 0.0f, 1e-6f);
}

TEST(ImageFolderDataset, BadFoldersAreNamed) {
  const auto dir = kiln::testing::fresh_folder("folder_bad");
  EXPECT_CONTAINS(error_message([&] { ImageFolderDataset((dir / "nope").string()); }),
                  (dir / "nope").string() + " does not exist");
  EXPECT_CONTAINS(error_message([&] { ImageFolderDataset(dir.string()); }),
                  "has no class sub-folders");
  png(dir / "a" / "1.png", gradient(3, 3, 1));
  std::filesystem::create_directories(dir / "b");
  kiln::testing::write_text(dir / "b" / "x.txt", "no images here");
  EXPECT_CONTAINS(error_message([&] { ImageFolderDataset(dir.string()); }),
                  "class folder " + (dir / "b").string() + " holds no PNG or JPEG image");
  std::filesystem::remove_all(dir / "b");
  EXPECT_CONTAINS(
      error_message([&] { ImageFolderDataset(dir.string(), ImageFolderOptions{.channels = 2}); }),
      "1 (gray) or 3 (RGB) channels, not 2");
}

TEST(ImageFolderDataset, AnUndecodableImageReachesTheLoaderWithItsIndexAndFile) {
  const auto dir = kiln::testing::fresh_folder("folder_decode");
  for (int k = 0; k < 6; ++k) png(dir / "a" / (std::to_string(k) + ".png"), gradient(3, 3, 1));
  const std::string broken = kiln::testing::write_text(dir / "a" / "3.png", "garbage");
  auto data = std::make_shared<ImageFolderDataset>(dir.string(),
                                                   ImageFolderOptions{.height = 3, .width = 3});
  std::vector<float> x(9);
  std::int32_t y;
  EXPECT_CONTAINS(error_message([&] { data->get(3, x.data(), &y); }),
                  "cannot decode image " + broken);
  kiln::DataLoader loader(
      data, kiln::DataLoaderOptions{.batch_size = 2, .shuffle = false, .num_workers = 2});
  const std::string message = error_message([&] {
    for (const kiln::Batch& b : loader) (void)b;
  });
  EXPECT_CONTAINS(message, "loading sample 3 (batch 1 of epoch 0) of image folder " + dir.string());
  EXPECT_CONTAINS(message, broken);
}

namespace {
std::vector<std::uint8_t> file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void put_be(std::vector<std::uint8_t>& bytes, std::size_t at, std::uint32_t value, int size) {
  for (int k = 0; k < size; ++k)
    bytes[at + static_cast<std::size_t>(k)] =
        static_cast<std::uint8_t>(value >> (8 * (size - 1 - k)));
}
}  // namespace

TEST(ImageIo, HeadersClaimingHugeImagesAreRefusedBeforeAllocating) {
  const auto dir = kiln::testing::fresh_folder("image_huge");
  kiln::write_png((dir / "ok.png").string(), gradient(3, 3, 1));
  std::vector<std::uint8_t> png_bytes = file_bytes(dir / "ok.png");
  put_be(png_bytes, 16, 100000, 4);  // IHDR width and height, then its CRC over type + data
  put_be(png_bytes, 20, 100000, 4);
  put_be(png_bytes, 29, static_cast<std::uint32_t>(crc32(0, png_bytes.data() + 12, 17)), 4);
  EXPECT_CONTAINS(
      error_message([&] { kiln::decode_image(png_bytes.data(), png_bytes.size(), 1, "big.png"); }),
      "cannot decode PNG image big.png: it claims 100000 x 100000 pixels x 1 channel(s)");
  put_be(png_bytes, 16, 10000, 4);  // 100 MB of pixels fit the limit, not in a 70-byte file
  put_be(png_bytes, 20, 10000, 4);
  put_be(png_bytes, 29, static_cast<std::uint32_t>(crc32(0, png_bytes.data() + 12, 17)), 4);
  EXPECT_CONTAINS(error_message([&] {
                    kiln::decode_image(png_bytes.data(), png_bytes.size(), 1, "small.png");
                  }),
                  "it claims 10000 x 10000 pixels, more than its " +
                      std::to_string(png_bytes.size()) + " bytes can hold");
  kiln::write_jpeg((dir / "ok.jpg").string(), gradient(8, 8, 3));
  std::vector<std::uint8_t> jpeg = file_bytes(dir / "ok.jpg");
  std::size_t sof = 2;
  while (sof + 9 < jpeg.size() && !(jpeg[sof] == 0xFF && jpeg[sof + 1] == 0xC0)) ++sof;
  ASSERT_LT(sof + 9, jpeg.size()) << "no baseline SOF0 marker";
  put_be(jpeg, sof + 5, 60000, 2);  // height, then width
  put_be(jpeg, sof + 7, 60000, 2);
  EXPECT_CONTAINS(
      error_message([&] { kiln::decode_image(jpeg.data(), jpeg.size(), 3, "big.jpg"); }),
      "cannot decode JPEG image big.jpg: it claims 60000 x 60000 pixels x 3 channel(s)");
  put_be(jpeg, sof + 5, 4000, 2);  // 48 MB of pixels fit the limit; 250,000 blocks not this file
  put_be(jpeg, sof + 7, 4000, 2);
  EXPECT_CONTAINS(
      error_message([&] { kiln::decode_image(jpeg.data(), jpeg.size(), 3, "short.jpg"); }),
      "it claims 4000 x 4000 pixels, more than its " + std::to_string(jpeg.size()) +
          " bytes can hold");
}

TEST(ImageFolderDataset, AnImageOfAnotherSizeIsAnErrorUnlessASizeIsGiven) {
  const auto dir = kiln::testing::fresh_folder("folder_sizes");
  png(dir / "a" / "1.png", gradient(4, 4, 1));
  png(dir / "a" / "2.png", gradient(4, 6, 1));
  const ImageFolderDataset data(dir.string());
  std::vector<float> x(16);
  std::int32_t y;
  data.get(0, x.data(), &y);
  EXPECT_CONTAINS(error_message([&] { data.get(1, x.data(), &y); }),
                  (dir / "a" / "2.png").string() + " is 4 x 6 pixels but " +
                      (dir / "a" / "1.png").string() + " (the first image) is 4 x 4");
  const ImageFolderDataset resized(dir.string(), ImageFolderOptions{.height = 4, .width = 4});
  resized.get(1, x.data(), &y);  // an explicit size resizes every image
  EXPECT_CONTAINS(
      error_message([&] { ImageFolderDataset(dir.string(), ImageFolderOptions{.height = 4}); }),
      "image size must give both height and width");
}

TEST(ImageFolderDataset, FileNamesFoundOnDiskAreEscapedInMessages) {
  const auto dir = kiln::testing::fresh_folder("images_hostile_names");
  kiln::testing::write_text(dir / "cat\x1b]0;owned\x07" / "a\x1b[2J.png", "not an image");
  const ImageFolderDataset data(dir.string(), ImageFolderOptions{.height = 4, .width = 4});
  std::vector<float> x(16);
  std::int32_t y = 0;
  const std::string message = error_message([&] { data.get(0, x.data(), &y); });
  EXPECT_TRUE(kiln::testing::is_printable_message(message));
  EXPECT_CONTAINS(message, "cat\\x1b]0;owned\\x07/a\\x1b[2J.png: it is neither PNG nor JPEG");
}
