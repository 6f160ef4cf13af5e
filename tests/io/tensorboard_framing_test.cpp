// CRC-32C against published check values (RFC 3720 B.4 and the "123456789" check), TensorFlow's
// mask, and the TFRecord framing byte by byte.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "kiln/io/tensorboard/crc32c.h"
#include "kiln/io/tensorboard/tfrecord.h"

namespace {

std::uint64_t little_endian(const std::string& bytes, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

}  // namespace

TEST(Crc32c, MatchesThePublishedCheckValues) {
  EXPECT_EQ(kiln::crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(kiln::crc32c(""), 0u);
  EXPECT_EQ(kiln::crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(kiln::crc32c(std::string(32, '\xFF')), 0x62A8AB43u);
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  EXPECT_EQ(kiln::crc32c(ascending), 0x46DD794Eu);
  EXPECT_EQ(kiln::crc32c(descending), 0x113FDB5Cu);
}

TEST(Crc32c, MaskedRotatesRightBy15AndAddsTensorFlowsConstant) {
  const std::uint32_t c = 0xE3069283u;
  EXPECT_EQ(kiln::masked_crc32c("123456789"), ((c >> 15) | (c << 17)) + 0xa282ead8u);
}

TEST(TfRecord, FramesLengthAndDataEachWithItsMaskedCrc) {
  const std::string data = "a summary of 7 epochs";
  const std::string record = kiln::tfrecord(data);
  ASSERT_EQ(record.size(), 8 + 4 + data.size() + 4);
  EXPECT_EQ(little_endian(record, 0, 8), data.size());
  EXPECT_EQ(little_endian(record, 8, 4), kiln::masked_crc32c(record.substr(0, 8)));
  EXPECT_EQ(record.substr(12, data.size()), data);
  EXPECT_EQ(little_endian(record, 12 + data.size(), 4), kiln::masked_crc32c(data));
}
