#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kiln/models/safetensors.h"
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
  for (int i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  EXPECT_EQ(n % 8, 0u);  // data starts 8-byte aligned
  const std::string header = bytes.substr(8, n);
  EXPECT_NE(header.find(R"("b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})"), std::string::npos) << header;
  EXPECT_EQ(bytes.size(), 8 + n + 8);
  float first = 0;
  std::memcpy(&first, bytes.data() + 8 + n, 4);
  EXPECT_EQ(first, 1.5f);
}

TEST(Safetensors, RejectsBrokenFilesNamingThem) {
  const std::string path = temp_path("broken.safetensors");
  kiln::save_safetensors(path, {{"w", kiln::testing::random_tensor({100}, 2)}});
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 10);
  EXPECT_NE(error_message([&] { kiln::load_safetensors(path); }).find("truncated"), std::string::npos);
  { std::ofstream(path, std::ios::binary) << "garbage"; }
  EXPECT_NE(error_message([&] { kiln::load_safetensors(path); }).find(path), std::string::npos);
  EXPECT_NE(error_message([&] { kiln::load_safetensors(temp_path("missing.safetensors")); }).find("cannot open"),
            std::string::npos);
}
