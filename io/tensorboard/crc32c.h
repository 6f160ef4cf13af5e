// CRC-32C (Castagnoli), the checksum of TFRecord framing, and TensorFlow's masked form of it.
// Debian has no CRC32C library; a table-driven one is a few lines and fast enough for logs.
#pragma once

#include <cstdint>
#include <string_view>

namespace kiln {

// The CRC-32C of `bytes` (reflected polynomial 0x82F63B78): crc32c("123456789") = 0xE3069283.
std::uint32_t crc32c(std::string_view bytes);
// TensorFlow's masked CRC: a CRC of data that itself holds CRCs is a poor check, so the stored
// value is rotated right by 15 bits and offset by 0xa282ead8.
std::uint32_t masked_crc32c(std::string_view bytes);

}  // namespace kiln
