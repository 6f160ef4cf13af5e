// Vocabularies of token data and their UTF-8 decoding (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF).
#include "kiln/data/vocabulary.h"

#include <algorithm>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"

namespace kiln {

namespace {

constexpr std::uint32_t kMaxCodePoint = 0x10FFFF;

void append_utf8(std::uint32_t c, std::string& out) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

}  // namespace

std::string_view vocabulary_kind_name(VocabularyKind kind) {
  switch (kind) {
    case VocabularyKind::bytes: return "bytes";
    case VocabularyKind::chars: return "chars";
    case VocabularyKind::ids: return "ids";
  }
  return "bytes";
}

VocabularyKind vocabulary_kind_from_name(std::string_view name) {
  if (name == "bytes") return VocabularyKind::bytes;
  if (name == "chars") return VocabularyKind::chars;
  if (name == "ids") return VocabularyKind::ids;
  KILN_THROW("unknown vocabulary kind {}: expected bytes, chars or ids", excerpt(name));
}

std::vector<std::uint32_t> utf8_code_points(std::string_view text, const std::string& source) {
  std::vector<std::uint32_t> out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char lead = p[i];
    int length = 0;
    std::uint32_t c = 0, least = 0;
    if (lead < 0x80)
      length = 1, c = lead;
    else if ((lead & 0xE0) == 0xC0)
      length = 2, c = lead & 0x1F, least = 0x80;
    else if ((lead & 0xF0) == 0xE0)
      length = 3, c = lead & 0x0F, least = 0x800;
    else if ((lead & 0xF8) == 0xF0)
      length = 4, c = lead & 0x07, least = 0x10000;
    bool ok = length > 0 && i + static_cast<std::size_t>(length) <= n;
    for (int k = 1; ok && k < length; ++k) {
      ok = (p[i + k] & 0xC0) == 0x80;
      c = (c << 6) | (p[i + k] & 0x3F);
    }
    ok = ok && c >= least && c <= kMaxCodePoint && !(c >= 0xD800 && c <= 0xDFFF);
    KILN_CHECK(
        ok,
        "{} is not UTF-8 text at byte {}: {}; read it as bytes (tokens:PATH, a vocabulary of "
        "256) or convert it to UTF-8",
        source, i, excerpt(text.substr(i, 8)));
    out.push_back(c);
    i += static_cast<std::size_t>(length);
  }
  return out;
}

Vocabulary byte_vocabulary() { return {}; }

Vocabulary char_vocabulary(std::string_view text, const std::string& source) {
  std::vector<std::uint32_t> symbols = utf8_code_points(text, source);
  std::sort(symbols.begin(), symbols.end());
  symbols.erase(std::unique(symbols.begin(), symbols.end()), symbols.end());
  KILN_CHECK(!symbols.empty(), "{} is empty: a character vocabulary needs some text", source);
  Vocabulary v;
  v.kind = VocabularyKind::chars;
  v.size = static_cast<std::int64_t>(symbols.size());
  v.symbols = std::move(symbols);
  return v;
}

std::string decode(const Vocabulary& vocabulary, const std::vector<std::int32_t>& ids) {
  KILN_CHECK(vocabulary.kind != VocabularyKind::ids,
             "token ids of a vocabulary of {} ids from another tokenizer cannot be decoded to text "
             "here; decode them with that tokenizer",
             vocabulary.size);
  std::string out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::int32_t id = ids[i];
    KILN_CHECK(id >= 0 && id < vocabulary.size,
               "token {} at position {} is outside the vocabulary [0, {})", id, i, vocabulary.size);
    if (vocabulary.kind == VocabularyKind::bytes)
      out += static_cast<char>(static_cast<unsigned char>(id));
    else
      append_utf8(vocabulary.symbols[static_cast<std::size_t>(id)], out);
  }
  return out;
}

std::int32_t char_id(const Vocabulary& vocabulary, std::uint32_t code_point) {
  const std::vector<std::uint32_t>& symbols = vocabulary.symbols;
  const auto it = std::lower_bound(symbols.begin(), symbols.end(), code_point);
  return it != symbols.end() && *it == code_point ? static_cast<std::int32_t>(it - symbols.begin())
                                                  : -1;
}

std::vector<std::int32_t> encode(const Vocabulary& vocabulary, std::string_view text,
                                 const std::string& source) {
  KILN_CHECK(vocabulary.kind != VocabularyKind::ids,
             "{}: a vocabulary of {} ids from another tokenizer cannot encode text here; encode it "
             "with that tokenizer",
             source, vocabulary.size);
  std::vector<std::int32_t> ids;
  if (vocabulary.kind == VocabularyKind::bytes) {
    for (const char byte : text) ids.push_back(static_cast<unsigned char>(byte));
    return ids;
  }
  const std::vector<std::uint32_t> points = utf8_code_points(text, source);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::int32_t id = char_id(vocabulary, points[i]);
    if (id < 0) {
      std::string character;
      append_utf8(points[i], character);
      KILN_THROW(
          "{}: character {} of the text, {} (U+{:04X}), is not in the vocabulary of {} characters "
          "the model was trained on; leave it out or replace it",
          source, i, excerpt(character), points[i], vocabulary.symbols.size());
    }
    ids.push_back(id);
  }
  return ids;
}

void check_vocabulary(const Vocabulary& v, const std::string& source) {
  KILN_CHECK(v.size >= 1, "{}: a vocabulary of {} tokens; expected at least 1", source, v.size);
  if (v.kind == VocabularyKind::bytes)
    KILN_CHECK(v.size == 256 && v.symbols.empty(), "{}: a byte vocabulary has 256 tokens, found {}",
               source, v.size);
  if (v.kind == VocabularyKind::ids)
    KILN_CHECK(v.symbols.empty(), "{}: a vocabulary of ids lists no symbols, found {}", source,
               v.symbols.size());
  if (v.kind != VocabularyKind::chars) return;
  KILN_CHECK(static_cast<std::int64_t>(v.symbols.size()) == v.size,
             "{}: a character vocabulary of size {} lists {} code points", source, v.size,
             v.symbols.size());
  for (std::size_t i = 0; i < v.symbols.size(); ++i)
    KILN_CHECK(v.symbols[i] <= kMaxCodePoint && (i == 0 || v.symbols[i - 1] < v.symbols[i]),
               "{}: the vocabulary's code point {} at {} is not ascending and below U+110000",
               source, v.symbols[i], i);
}

}  // namespace kiln
