// Vocabulary: how token ids map to text, recorded in a checkpoint so that a later program
// (kiln-generate) decodes what the model emits: the bytes of a text, its characters, or the ids of
// a tokenizer kiln does not know.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

// The three kinds:
//   bytes  ids 0..255 are the bytes of the text (tokens:PATH)
//   chars  id k is the k-th of the file's distinct Unicode code points in ascending order
//          (tokens:PATH:chars); `symbols` holds them
//   ids    ids of a tokenizer kiln does not know (a nanoGPT or llm.c .bin): only the size
enum class VocabularyKind { bytes, chars, ids };

struct Vocabulary {
  VocabularyKind kind = VocabularyKind::bytes;
  std::int64_t size = 256;
  std::vector<std::uint32_t> symbols;  // chars: the code point of each id, ascending
  friend bool operator==(const Vocabulary&, const Vocabulary&) = default;
};

// "bytes", "chars", "ids".
std::string_view vocabulary_kind_name(VocabularyKind kind);
// Throws kiln::Error for another name.
VocabularyKind vocabulary_kind_from_name(std::string_view name);

// bytes: 256; chars: the text's distinct code points. Throws kiln::Error naming `source` and the
// byte offset (with an excerpt) where `text` is not well-formed UTF-8.
Vocabulary byte_vocabulary();
Vocabulary char_vocabulary(std::string_view text, const std::string& source);

// Text of token ids under the vocabulary: bytes and chars decode (chars as UTF-8); ids cannot
// and throw kiln::Error, as does an id outside [0, size).
std::string decode(const Vocabulary& vocabulary, const std::vector<std::int32_t>& ids);

// chars: the id of `code_point`, or -1 when it is not one of the symbols.
std::int32_t char_id(const Vocabulary& vocabulary, std::uint32_t code_point);

// Token ids of `text` under the vocabulary, decode's inverse: bytes encode every byte; chars
// encode each code point that is a symbol and throw kiln::Error naming `source`, the first
// character that is not (with its code point) and its position; ids cannot and throw.
std::vector<std::int32_t> encode(const Vocabulary& vocabulary, std::string_view text,
                                 const std::string& source);

// Checks a vocabulary read from a file: size >= 1; bytes has 256; chars has `size` ascending
// code points below 0x110000. Throws kiln::Error naming `source`.
void check_vocabulary(const Vocabulary& vocabulary, const std::string& source);

// The UTF-8 code points of `text`, in order; throws kiln::Error naming `source`, the byte offset
// and an excerpt at the first malformed sequence.
std::vector<std::uint32_t> utf8_code_points(std::string_view text, const std::string& source);

// How `then` (a checkpoint's) and `now` differ, for a resume's message: "a chars vocabulary of
// 30 tokens (this run: a chars vocabulary of 30; only the checkpoint's has 'q' (U+0071), only
// this run's has 'z' (U+007A))"; "" when they are equal.
std::string vocabulary_difference(const Vocabulary& then, const Vocabulary& now);

// The number of code points of `text`, and their ids under a chars `vocabulary` written to
// `ids` (room for utf8_length of them), both without allocating; throw as utf8_code_points,
// and utf8_ids also for a character the vocabulary lacks (naming `source`, the character and its
// position). 16-bit ids take a vocabulary of at most 65536 characters.
std::int64_t utf8_length(std::string_view text, const std::string& source);
void utf8_ids(std::string_view text, const std::string& source, const Vocabulary& vocabulary,
              std::int32_t* ids);
void utf8_ids(std::string_view text, const std::string& source, const Vocabulary& vocabulary,
              std::uint16_t* ids);

}  // namespace kiln
