// TFRecord framing, the container of TensorFlow's event files: each record is its length
// (uint64, little-endian), the masked CRC-32C of those 8 bytes, the data, and the masked CRC-32C
// of the data (both uint32, little-endian).
#pragma once

#include <string>
#include <string_view>

namespace kiln {

// `data` framed as one record.
std::string tfrecord(std::string_view data);

}  // namespace kiln
