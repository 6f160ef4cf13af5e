#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kiln/io/safetensors.h"
#include "tests/support/error_testing.h"
#include "tests/support/tensor_testing.h"

namespace {
std::string temp_path(const std::string& name) { return ::testing::TempDir() + "kiln_" + name; }
using kiln::testing::error_message;
}  // namespace

TEST(Safetensors, RoundTripsTensorsAndMetadata) {
  const std::string path = temp_path("round_trip.safetensors");
  const kiln::Tensor w = kiln::testing::random_tensor({33, 7}, 1);
  const kiln::Tensor labels = kiln::Tensor::from_vector(std::vector<std::int32_t>{3, 1, 4}, {3});
  kiln::save_safetensors(path, {{"layers.0.weight", w}, {"labels", labels}}, {{"format", "pt"}});
  const kiln::SafetensorsFile file = kiln::load_safetensors(path);
  EXPECT_EQ(file.metadata.at("format"), "pt");
  EXPECT_EQ(file.tensors.at("layers.0.weight").to_vector<float>(), w.to_vector<float>());
  EXPECT_EQ(file.tensors.at("labels").to_vector<std::int32_t>(), labels.to_vector<std::int32_t>());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(Safetensors, WritesTheLayoutOtherReadersExpect) {
  const std::string path = temp_path("layout.safetensors");
  kiln::save_safetensors(path, {{"b", kiln::Tensor::full({2}, 1.5f)}});
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i)
    n |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  EXPECT_EQ(n % 8, 0u);  // data starts 8-byte aligned
  const std::string header = bytes.substr(8, n);
  EXPECT_NE(header.find(R"("b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})"),
            std::string::npos)
      << header;
  EXPECT_EQ(bytes.size(), 8 + n + 8);
  float first = 0;
  std::memcpy(&first, bytes.data() + 8 + n, 4);
  EXPECT_EQ(first, 1.5f);
}

TEST(Safetensors, RejectsBrokenFilesNamingThem) {
  const std::string path = temp_path("broken.safetensors");
  kiln::save_safetensors(path, {{"w", kiln::testing::random_tensor({100}, 2)}});
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 10);
  EXPECT_NE(error_message([&] { kiln::load_safetensors(path); }).find("truncated"),
            std::string::npos);
  { std::ofstream(path, std::ios::binary) << "garbage"; }
  EXPECT_NE(error_message([&] { kiln::load_safetensors(path); }).find(path), std::string::npos);
  EXPECT_NE(error_message([&] {
              kiln::load_safetensors(temp_path("missing.safetensors"));
            }).find("cannot open"),
            std::string::npos);
}

namespace {
// A safetensors file from its header text and `data_bytes` bytes of data.
std::string handmade(const std::string& name, const std::string& header, std::size_t data_bytes) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  bytes += header;
  bytes.append(data_bytes, '\x01');
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}
std::string load_error(const std::string& path) {
  return error_message([&] { kiln::load_safetensors(path); });
}
#define EXPECT_ERROR_HAS(path, part)                               \
  do {                                                             \
    const std::string message_ = load_error(path);                 \
    EXPECT_NE(message_.find(path), std::string::npos) << message_; \
    EXPECT_NE(message_.find(part), std::string::npos) << message_; \
  } while (0)
}  // namespace

TEST(Safetensors, OffsetsThatWrapAroundAreRefusedBeforeAnyCopy) {
  // begin + data start wraps past 2^64 to a small number: this read outside the file before.
  const std::string wrap = handmade(
      "wrap.safetensors",
      R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[18446744073709551608,18446744073709551612]}})",
      4);
  EXPECT_ERROR_HAS(wrap, "outside the 4 bytes of data");
  const std::string backwards = handmade(
      "backwards.safetensors", R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", 4);
  EXPECT_ERROR_HAS(backwards, "data_offsets [4, 0], outside");
  const std::string negative = handmade(
      "negative.safetensors", R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})", 4);
  EXPECT_ERROR_HAS(negative, "tensor 'w' has data_offsets -4: expected non-negative integers");
  const std::string size =
      handmade("size.safetensors", R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", 4);
  EXPECT_ERROR_HAS(size, "of shape [2] needs 8 bytes, but its data_offsets [0, 4] hold 4");
}

TEST(Safetensors, TensorsMustTileTheDataWithoutOverlapOrHole) {
  const std::string overlap = handmade(
      "overlap.safetensors",
      R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}})",
      4);
  EXPECT_ERROR_HAS(overlap, "tensors 'a' and 'b' overlap");
  const std::string hole =
      handmade("hole.safetensors", R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8);
  EXPECT_ERROR_HAS(hole, "bytes [0, 4) of the data belong to no tensor");
  const std::string tail =
      handmade("tail.safetensors", R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 12);
  EXPECT_ERROR_HAS(tail, "the last 8 bytes of the data belong to no tensor");
  const std::string fine = handmade(
      "fine.safetensors",
      R"({"b":{"dtype":"I32","shape":[1],"data_offsets":[4,8]},"a":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]},"e":{"dtype":"F32","shape":[0],"data_offsets":[8,8]}})",
      8);
  EXPECT_EQ(kiln::load_safetensors(fine).tensors.size(), 3u) << "out of header order is fine";
}

TEST(Safetensors, BadShapesNameTheFileAndTensor) {
  const std::string negative = handmade(
      "neg_shape.safetensors", R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4);
  EXPECT_ERROR_HAS(negative, "tensor 'w' has shape -1: expected non-negative integers");
  const std::string huge =
      handmade("huge_shape.safetensors",
               R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})", 4);
  EXPECT_ERROR_HAS(huge, "of shape [4294967296, 4294967296] needs more than 2^63 bytes");
  const std::string text = handmade(
      "text_shape.safetensors", R"({"w":{"dtype":"F32","shape":"big","data_offsets":[0,4]}})", 4);
  EXPECT_ERROR_HAS(text, "expected a list of extents");
  const std::string dtype =
      handmade("f64.safetensors", R"({"w":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", 8);
  EXPECT_ERROR_HAS(dtype, "tensor 'w' is F64");
}

TEST(Safetensors, TensorNamesAndHeaderTextInMessagesAreEscapedAndBounded) {
  using kiln::testing::is_printable_message;
  // JSON decodes \u001b to the ESC byte: the name holds a sequence that retitles the terminal.
  const std::string title =
      handmade("title.safetensors",
               R"({"\u001b]0;owned\u0007":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", 8);
  EXPECT_TRUE(is_printable_message(load_error(title)));
  EXPECT_ERROR_HAS(title, "tensor '\\x1b]0;owned\\x07' is F64");
  const std::string long_name =
      "{\"" + std::string(1 << 20, 'n') + R"(":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})";
  const std::string named = handmade("long_name.safetensors", long_name, 8);
  EXPECT_TRUE(is_printable_message(load_error(named)));
  EXPECT_ERROR_HAS(named, "(1048576 bytes) is F64");
  const std::string value = R"({"w":{"dtype":"F32","shape":")" + std::string(1 << 20, 'v') +
                            R"(","data_offsets":[0,4]}})";
  EXPECT_TRUE(is_printable_message(load_error(handmade("long_value.safetensors", value, 4))));
  const std::string junk =
      handmade("junk.safetensors", "{\"w\": \x1b[2J" + std::string(100000, 'j'), 0);
  EXPECT_TRUE(is_printable_message(load_error(junk)));
  EXPECT_ERROR_HAS(junk, "malformed safetensors header");
  std::string deep = R"({"w":{"dtype":"F32","data_offsets":[0,4],"shape":[1)";
  for (int d = 0; d < 1000; ++d) deep += ",1";
  EXPECT_ERROR_HAS(handmade("deep.safetensors", deep + "]}}", 4),
                   "has 1001 dimensions; at most 64");
}

TEST(Safetensors, ATensorNamedTwiceIsNamedAsSuch) {
  const std::string twice = handmade(
      "twice.safetensors",
      R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
      8);
  EXPECT_ERROR_HAS(twice, "names tensor 'w' twice");
  const std::string nested = handmade(  // the same key in two entries is no duplicate
      "nested.safetensors",
      R"({"__metadata__":{"shape":"x"},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4);
  EXPECT_EQ(kiln::load_safetensors(nested).tensors.size(), 1u);
}
