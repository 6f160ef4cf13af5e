// TokenSequence: the token ids of one file, memory-mapped where the file holds them as they are
// (bytes of a text, nanoGPT's and llm.c's .bin files), else decoded (a text's UTF-8 characters).
// Every id is checked against the vocabulary when the file is opened, so a bad file fails at
// once, naming the file, the position and what to do, rather than in a worker mid-run.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/input_file.h"
#include "kiln/data/vocabulary.h"

namespace kiln {

// The forms a file is read in:
//   text, bytes   each byte is a token (vocabulary 256); the file is mapped and read in place
//   text, chars   each UTF-8 code point is a token, numbered by the vocabulary (the file's own
//                 sorted distinct code points, or a given one, e.g. the training file's)
//   u16           nanoGPT's raw .bin: little-endian uint16 ids, no header; mapped
//   llm.c         llm.c's .bin: 256 int32 of header (magic 20240520, version 1, token count),
//                 then the uint16 ids; recognised by its magic whatever form was asked; mapped
enum class TokenEncoding { bytes, chars, u16 };

// llm.c's tokenized .bin files (dev/data/data_common.py): the first header word.
inline constexpr std::int32_t kLlmcMagic = 20240520;
inline constexpr std::int64_t kLlmcHeaderBytes = 256 * 4;

struct TokenFileOptions {
  TokenEncoding encoding = TokenEncoding::bytes;
  // u16 and llm.c files: the vocabulary size (ids must be below it); unset: the largest id + 1.
  std::optional<std::int64_t> vocab_size;
  // chars: number the characters by this vocabulary (every character of the file must be in
  // it); null: build one from the file.
  const Vocabulary* vocabulary = nullptr;
};

class TokenSequence {
 public:
  // Throws kiln::Error naming `path` for a file that cannot be read, a truncated or damaged
  // llm.c header, a size that does not hold whole tokens, an id outside the vocabulary, text
  // that is not UTF-8 (chars) or a character the given vocabulary lacks.
  TokenSequence(const std::string& path, const TokenFileOptions& options = {});

  std::int64_t size() const { return size_; }
  std::int32_t operator[](std::int64_t i) const {
    if (!narrow_ids_.empty()) return narrow_ids_[static_cast<std::size_t>(i)];
    if (!wide_ids_.empty()) return wide_ids_[static_cast<std::size_t>(i)];
    if (width_ == 1) return data_[i];
    return static_cast<std::int32_t>(data_[2 * i] | (data_[2 * i + 1] << 8));  // little-endian
  }
  const Vocabulary& vocabulary() const { return vocabulary_; }
  const std::string& path() const { return path_; }
  // "llm.c tokens of PATH (1000000 tokens, vocabulary 50257)".
  std::string describe() const;

 private:
  void open_llmc(std::string_view bytes, const TokenFileOptions& options);
  void open_u16(std::string_view bytes, std::int64_t offset, const TokenFileOptions& options);
  void open_chars(std::string_view bytes, const TokenFileOptions& options);

  std::string path_;
  std::string format_;  // "text", "llm.c", "uint16"
  Mapping mapping_;
  const unsigned char* data_ = nullptr;  // the first token's bytes in the mapping
  int width_ = 1;
  // chars: the ids, numbered by the vocabulary; 2 bytes each unless the vocabulary passes 65536
  // characters.
  std::vector<std::uint16_t> narrow_ids_;
  std::vector<std::int32_t> wide_ids_;
  std::int64_t size_ = 0;
  Vocabulary vocabulary_;
};

}  // namespace kiln
