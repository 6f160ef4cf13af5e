// One escaping rule for every excerpt of a file in a message: what a terminal would interpret
// (C0 and C1 controls, DEL, bidirectional overrides that reorder what is shown) and what is not
// UTF-8 becomes visible \xNN text; the rest of the UTF-8 text stays readable.
#include "kiln/core/excerpt.h"

#include <fmt/format.h>

namespace kiln {

namespace {

// The length of the well-formed UTF-8 sequence at the start of `s` (1 to 4), or 0 when it is
// not one: a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, or cut short.
std::size_t utf8_sequence_length(std::string_view s, char32_t* code_point) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  char32_t value = 0;
  char32_t smallest = 0;
  if (lead < 0x80) {
    *code_point = lead;
    return 1;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2, value = lead & 0x1F, smallest = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, value = lead & 0x0F, smallest = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, value = lead & 0x07, smallest = 0x10000;
  } else {
    return 0;
  }
  if (s.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    value = (value << 6) | (byte(i) & 0x3F);
  }
  if (value < smallest || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 0;
  *code_point = value;
  return length;
}

// Code points a terminal acts on rather than shows, or that reorder the text shown around them.
bool is_control(char32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029;
}

void append_escaped(std::string& out, std::string_view bytes) {
  for (unsigned char b : bytes) out += fmt::format("\\x{:02x}", b);
}

// A sequence that is not UTF-8 (length 0), or a control: shown as \xNN.
bool is_escaped(std::size_t length, char32_t c) { return length == 0 || is_control(c); }

// The escaped text of `bytes` up to max_bytes of input, and whether it was cut.
bool escape_bounded(std::string_view bytes, std::size_t max_bytes, std::string& out) {
  std::size_t at = 0;
  while (at < bytes.size()) {
    char32_t c = 0;
    const std::size_t length = utf8_sequence_length(bytes.substr(at), &c);
    const std::size_t step = length == 0 ? 1 : length;
    if (at + step > max_bytes) return true;
    if (is_escaped(length, c))
      append_escaped(out, bytes.substr(at, step));
    else
      out.append(bytes.substr(at, step));
    at += step;
  }
  return false;
}

std::string bounded(std::string_view bytes, std::size_t max_bytes, std::string_view quote) {
  std::string out(quote);
  const bool cut = escape_bounded(bytes, max_bytes, out);
  if (cut) out += "\u2026";  // …
  out += quote;
  if (cut) out += fmt::format(" ({} bytes)", bytes.size());
  return out;
}

}  // namespace

std::string excerpt(std::string_view bytes, std::size_t max_bytes) {
  return bounded(bytes, max_bytes, "'");
}

std::string shown_path(std::string_view path) { return bounded(path, 4096, ""); }

bool is_plain_text(std::string_view bytes) {
  for (std::size_t at = 0; at < bytes.size();) {
    char32_t c = 0;
    const std::size_t length = utf8_sequence_length(bytes.substr(at), &c);
    if (is_escaped(length, c)) return false;
    at += length;
  }
  return true;
}

std::string bare_excerpt(std::string_view bytes, std::size_t max_bytes) {
  return bounded(bytes, max_bytes, "");
}

}  // namespace kiln
