// Opening token files: the llm.c header's checks, the uint16 range check and the character
// numbering. Ids are checked once here so that TokenSequence::operator[] stays a plain load.
#include "kiln/data/token_file.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"
#include "kiln/core/host_memory.h"

namespace kiln {

namespace {

std::int32_t read_i32(std::string_view bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (int k = 3; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(bytes[at + k]);
  return static_cast<std::int32_t>(v);
}

bool starts_with_llmc_magic(std::string_view bytes) {
  return bytes.size() >= 4 && read_i32(bytes, 0) == kLlmcMagic;
}

}  // namespace

TokenSequence::TokenSequence(const std::string& path, const TokenFileOptions& options)
    : path_(path) {
  InputFile file(path, "token file");
  mapping_ = file.map();
  const std::string_view bytes = mapping_.bytes();
  if (starts_with_llmc_magic(bytes)) {
    open_llmc(bytes, options);
  } else if (options.encoding == TokenEncoding::u16) {
    format_ = "uint16";
    open_u16(bytes, 0, options);
  } else if (options.encoding == TokenEncoding::chars) {
    format_ = "text";
    open_chars(bytes, options);
  } else {
    format_ = "text";
    KILN_CHECK(
        !options.vocab_size || *options.vocab_size == 256,
        "token file {} read as bytes has a vocabulary of 256, not {}; drop the vocabulary size "
        "(or read the file as uint16 ids)",
        path_, options.vocab_size.value_or(0));
    data_ = reinterpret_cast<const unsigned char*>(bytes.data());
    width_ = 1;
    size_ = static_cast<std::int64_t>(bytes.size());
    vocabulary_ = byte_vocabulary();
  }
}

void TokenSequence::open_llmc(std::string_view bytes, const TokenFileOptions& options) {
  format_ = "llm.c";
  KILN_CHECK(options.encoding != TokenEncoding::chars,
             "token file {} is an llm.c .bin (it begins with the magic {}), not text: read it "
             "without chars",
             path_, kLlmcMagic);
  const auto file_bytes = static_cast<std::int64_t>(bytes.size());
  KILN_CHECK(file_bytes >= kLlmcHeaderBytes,
             "token file {} begins with llm.c's magic {} but holds only {} bytes, less than its "
             "{}-byte header: "
             "the file is truncated; write it again",
             path_, kLlmcMagic, file_bytes, kLlmcHeaderBytes);
  const std::int32_t version = read_i32(bytes, 4);
  KILN_CHECK(
      version == 1,
      "token file {} is an llm.c .bin of version {}; kiln reads version 1 (uint16 tokens, GPT-2's "
      "tokenizer)",
      path_, version);
  const std::int32_t count = read_i32(bytes, 8);
  const std::int64_t room = (file_bytes - kLlmcHeaderBytes) / 2;
  KILN_CHECK(
      count >= 0 && count <= room,
      "token file {}: its llm.c header states {} tokens, but the file holds room for {} after the "
      "header: the file is truncated or its header damaged; write it again",
      path_, count, room);
  KILN_CHECK(kLlmcHeaderBytes + 2 * static_cast<std::int64_t>(count) == file_bytes,
             "token file {}: its llm.c header states {} tokens ({} bytes with the header), but the "
             "file has "
             "{} bytes: {} bytes follow the tokens; write it again",
             path_, count, kLlmcHeaderBytes + 2 * static_cast<std::int64_t>(count), file_bytes,
             file_bytes - kLlmcHeaderBytes - 2 * static_cast<std::int64_t>(count));
  open_u16(bytes.substr(
               0, static_cast<std::size_t>(kLlmcHeaderBytes) + 2 * static_cast<std::size_t>(count)),
           kLlmcHeaderBytes, options);
}

void TokenSequence::open_u16(std::string_view bytes, std::int64_t offset,
                             const TokenFileOptions& options) {
  const auto body = static_cast<std::int64_t>(bytes.size()) - offset;
  KILN_CHECK(body % 2 == 0,
             "token file {} of uint16 tokens has {} bytes after its start at byte {}, an odd "
             "number: not whole "
             "tokens; is it a uint16 .bin?",
             path_, body, offset);
  data_ = reinterpret_cast<const unsigned char*>(bytes.data()) + offset;
  width_ = 2;
  size_ = body / 2;
  if (options.vocab_size)
    KILN_CHECK(*options.vocab_size >= 1 && *options.vocab_size <= 65536,
               "token file {} of uint16 tokens: a vocabulary size must be in [1, 65536], found {}",
               path_, *options.vocab_size);
  std::int32_t largest = -1;
  for (std::int64_t i = 0; i < size_; ++i) {
    const std::int32_t id = (*this)[i];
    largest = std::max(largest, id);
    if (options.vocab_size && id >= *options.vocab_size)
      KILN_THROW(
          "token file {}: token {} at position {} (byte {}, bytes {}) is outside the vocabulary "
          "[0, {}): give the tokenizer's vocabulary size, or check that the file holds uint16 ids",
          path_, id, i, offset + 2 * i,
          excerpt(bytes.substr(static_cast<std::size_t>(offset + 2 * i), 2)), *options.vocab_size);
  }
  vocabulary_.kind = VocabularyKind::ids;
  vocabulary_.size = options.vocab_size.value_or(largest + 1);
  KILN_CHECK(vocabulary_.size >= 1, "token file {} holds no tokens", path_);
}

void TokenSequence::open_chars(std::string_view bytes, const TokenFileOptions& options) {
  KILN_CHECK(
      !options.vocab_size,
      "token file {} read as characters numbers them from the file; drop the vocabulary size",
      path_);
  // Each character becomes a 4-byte id in memory: at least as many bytes as the file's when
  // every character is one byte, so a file past the budget is refused before it is read, and
  // the exact need once the characters are counted.
  const auto check_ids_fit = [&](std::uint64_t need) {
    const std::uint64_t half = host_memory_bytes() / 2;
    KILN_CHECK(half == 0 || need <= half,
               "token file {} read as characters ({} bytes) needs {:.1f} GiB for its ids (4 bytes "
               "per character), more than half of this machine's {:.1f} GiB: read it as bytes "
               "(tokens:PATH), or use a shorter text",
               path_, bytes.size(), static_cast<double>(need) / 1073741824.0,
               static_cast<double>(2 * half) / 1073741824.0);
  };
  check_ids_fit(bytes.size());
  vocabulary_ = options.vocabulary ? *options.vocabulary : char_vocabulary(bytes, path_);
  KILN_CHECK(vocabulary_.kind == VocabularyKind::chars,
             "token file {}: a character vocabulary was expected", path_);
  const std::int64_t characters = utf8_length(bytes, path_);
  check_ids_fit(static_cast<std::uint64_t>(characters) * 4);
  try {
    ids_.resize(static_cast<std::size_t>(characters));
  } catch (const std::bad_alloc&) {  // a limit the host's figures do not show (ulimit -v, cgroups)
    KILN_THROW(
        "token file {} read as characters ({} bytes): the ids of its {} characters take {:.1f} "
        "GiB, which could not be allocated; read it as bytes (tokens:PATH), or use a shorter text",
        path_, bytes.size(), characters, static_cast<double>(characters) * 4 / 1073741824.0);
  }
  utf8_ids(bytes, "token file " + path_, vocabulary_, ids_.data());  // UTF-8 checked above
  size_ = static_cast<std::int64_t>(ids_.size());
  mapping_ = Mapping();  // the ids are copied out
}

std::string TokenSequence::describe() const {
  return fmt::format("{} tokens of {} ({} tokens, {} vocabulary of {})", format_, path_, size_,
                     vocabulary_kind_name(vocabulary_.kind), vocabulary_.size);
}

}  // namespace kiln
