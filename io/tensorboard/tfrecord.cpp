// tfrecord (io/tensorboard/tfrecord.h): the bytes written least significant first, whatever the
// host's byte order.
#include "kiln/io/tensorboard/tfrecord.h"

#include <cstdint>

#include "kiln/io/tensorboard/crc32c.h"

namespace kiln {

namespace {

void append_little_endian(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFFu));
}

}  // namespace

std::string tfrecord(std::string_view data) {
  std::string record;
  record.reserve(data.size() + 16);
  append_little_endian(record, data.size(), 8);
  append_little_endian(record, masked_crc32c(record), 4);
  record.append(data);
  append_little_endian(record, masked_crc32c(data), 4);
  return record;
}

}  // namespace kiln
