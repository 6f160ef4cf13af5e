// The message check every fuzz target makes on each kiln::Error it catches: file content reaches
// a message only through kiln::excerpt(), so a message is bounded and printable whatever the
// input (no control byte, no byte that is not UTF-8).
#pragma once

#include <string_view>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"

namespace kiln::fuzz {

// Room for a path and a few excerpts, each at most 4 * 4 * kExcerptBytes + 40 bytes.
inline constexpr std::size_t kMostMessageBytes = 4096;

inline void check_message(const kiln::Error& e) {
  const std::string_view message = e.what();
  if (message.size() > kMostMessageBytes || !kiln::is_plain_text(message)) __builtin_trap();
}

}  // namespace kiln::fuzz
