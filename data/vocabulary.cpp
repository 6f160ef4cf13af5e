// Vocabularies of token data and their UTF-8 decoding (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF).
#include "kiln/data/vocabulary.h"

#include <algorithm>
#include <iterator>

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

namespace {

// Calls f(code point) for each code point of `text` in order; throws kiln::Error naming `source`,
// the byte offset and an excerpt at the first malformed sequence. Nothing is allocated, so a
// text of any size is walked in its mapping.
template <typename F>
void for_each_code_point(std::string_view text, const std::string& source, F&& f) {
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
    f(c);
    i += static_cast<std::size_t>(length);
  }
}

}  // namespace

std::vector<std::uint32_t> utf8_code_points(std::string_view text, const std::string& source) {
  std::vector<std::uint32_t> out;
  out.reserve(text.size());
  for_each_code_point(text, source, [&out](std::uint32_t c) { out.push_back(c); });
  return out;
}

std::int64_t utf8_length(std::string_view text, const std::string& source) {
  std::int64_t count = 0;
  for_each_code_point(text, source, [&count](std::uint32_t) { ++count; });
  return count;
}

namespace {

template <typename Id>
void write_utf8_ids(std::string_view text, const std::string& source, const Vocabulary& vocabulary,
                    Id* ids) {
  std::int64_t i = 0;
  for_each_code_point(text, source, [&](std::uint32_t c) {
    const std::int32_t id = char_id(vocabulary, c);
    KILN_CHECK(id >= 0,
               "{}: the character U+{:04X} at character {} is not in the vocabulary of {} "
               "characters (the training text's): the test text must use the training text's "
               "characters",
               source, c, i, vocabulary.symbols.size());
    ids[i++] = static_cast<Id>(id);
  });
}

}  // namespace

void utf8_ids(std::string_view text, const std::string& source, const Vocabulary& vocabulary,
              std::int32_t* ids) {
  write_utf8_ids(text, source, vocabulary, ids);
}

void utf8_ids(std::string_view text, const std::string& source, const Vocabulary& vocabulary,
              std::uint16_t* ids) {
  KILN_CHECK(vocabulary.size <= 65536, "{}: a vocabulary of {} characters does not fit 16-bit ids",
             source, vocabulary.size);
  write_utf8_ids(text, source, vocabulary, ids);
}

Vocabulary byte_vocabulary() { return {}; }

Vocabulary char_vocabulary(std::string_view text, const std::string& source) {
  // A mark per code point (136 KiB), not a list of the text's: a file of any size is numbered
  // in place.
  std::vector<bool> seen(kMaxCodePoint + 1, false);
  for_each_code_point(text, source, [&seen](std::uint32_t c) { seen[c] = true; });
  std::vector<std::uint32_t> symbols;
  for (std::uint32_t c = 0; c <= kMaxCodePoint; ++c)
    if (seen[c]) symbols.push_back(c);
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

namespace {

// "'q' (U+0071), 'r' (U+0072)": the first few of `points`, and how many more.
std::string listed_characters(const std::vector<std::uint32_t>& points) {
  constexpr std::size_t kShown = 8;
  std::string out;
  for (std::size_t i = 0; i < points.size() && i < kShown; ++i) {
    std::string character;
    append_utf8(points[i], character);
    out += fmt::format("{}{} (U+{:04X})", i == 0 ? "" : ", ", excerpt(character), points[i]);
  }
  if (points.size() > kShown) out += fmt::format(" and {} more", points.size() - kShown);
  return out;
}

}  // namespace

std::string vocabulary_difference(const Vocabulary& then, const Vocabulary& now) {
  if (then == now) return "";
  std::string text = fmt::format("a {} vocabulary of {} tokens (this run: a {} vocabulary of {}",
                                 vocabulary_kind_name(then.kind), then.size,
                                 vocabulary_kind_name(now.kind), now.size);
  if (then.kind == VocabularyKind::chars && now.kind == VocabularyKind::chars) {
    std::vector<std::uint32_t> only_then, only_now;
    std::set_difference(then.symbols.begin(), then.symbols.end(), now.symbols.begin(),
                        now.symbols.end(), std::back_inserter(only_then));
    std::set_difference(now.symbols.begin(), now.symbols.end(), then.symbols.begin(),
                        then.symbols.end(), std::back_inserter(only_now));
    if (!only_then.empty()) text += "; only the checkpoint's has " + listed_characters(only_then);
    if (!only_now.empty()) text += "; only this run's has " + listed_characters(only_now);
  }
  return text + ")";
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
