// Opening token files: the llm.c header's checks, the uint16 range check and the character
// numbering. Ids are checked once here so that TokenSequence::operator[] stays a plain load. The
// uint16 check reads the mapping a chunk at a time and gives each chunk's pages back after it,
// so that opening a 17 GB train.bin leaves the process no larger than one chunk.
#include "kiln/data/token_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
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

// The largest of `n` little-endian uint16 ids at `p`. Blocks of a fixed length, so that the
// compiler vectorises the inner loop; the check then runs at the speed of reading memory.
std::uint16_t largest_u16(const unsigned char* p, std::int64_t n) {
  constexpr std::int64_t kBlock = 2048;
  std::uint16_t block[kBlock];
  std::uint16_t largest = 0;
  for (std::int64_t at = 0; at < n; at += kBlock) {
    const std::int64_t count = std::min(kBlock, n - at);
    std::memcpy(block, p + 2 * at, static_cast<std::size_t>(2 * count));
    if constexpr (std::endian::native != std::endian::little)
      for (std::int64_t i = 0; i < count; ++i)
        block[i] = static_cast<std::uint16_t>((block[i] >> 8) | (block[i] << 8));
    std::fill(block + count, block + kBlock, std::uint16_t{0});
    std::uint16_t m = 0;
    for (std::int64_t i = 0; i < kBlock; ++i) m = std::max(m, block[i]);
    largest = std::max(largest, m);
  }
  return largest;
}

// Gives the pages wholly inside [begin, end) of a read-only file mapping back to the page cache:
// the process's resident size falls, and reading them again faults them back in from the cache.
void release_pages(const unsigned char* begin, const unsigned char* end) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t first = (reinterpret_cast<std::uintptr_t>(begin) + page - 1) / page * page;
  const std::uintptr_t last = reinterpret_cast<std::uintptr_t>(end) / page * page;
  if (last > first)
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);  // a hint: no error
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
  constexpr std::int64_t kChunk = std::int64_t{32} << 20;  // tokens: 64 MiB of the mapping
  for (std::int64_t first = 0; first < size_; first += kChunk) {
    const std::int64_t count = std::min(kChunk, size_ - first);
    const std::int32_t chunk_largest = largest_u16(data_ + 2 * first, count);
    largest = std::max(largest, chunk_largest);
    if (options.vocab_size && chunk_largest >= *options.vocab_size) {
      for (std::int64_t i = first; i < first + count;
           ++i) {  // the first id past it, for the message
        const std::int32_t id = (*this)[i];
        if (id >= *options.vocab_size)
          KILN_THROW(
              "token file {}: token {} at position {} (byte {}, bytes {}) is outside the "
              "vocabulary [0, {}): give the tokenizer's vocabulary size, or check that the file "
              "holds uint16 ids",
              path_, id, i, offset + 2 * i,
              excerpt(bytes.substr(static_cast<std::size_t>(offset + 2 * i), 2)),
              *options.vocab_size);
      }
    }
    release_pages(data_ + 2 * first, data_ + 2 * (first + count));
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
  // Each character becomes an id of `width` bytes in memory (2, or 4 past 65536 characters): at
  // least half as many bytes as the file's (every character 4 bytes of UTF-8, 2-byte ids), so a
  // file past the budget is refused before it is read, and the exact need once it is counted.
  const auto check_ids_fit = [&](std::uint64_t need, int width) {
    const std::uint64_t half = host_memory_bytes() / 2;
    KILN_CHECK(half == 0 || need <= half,
               "token file {} read as characters ({} bytes) needs {:.1f} GiB for its ids ({} "
               "bytes per character), more than half of this machine's {:.1f} GiB: read it as "
               "bytes (tokens:PATH), or use a shorter text",
               path_, bytes.size(), static_cast<double>(need) / 1073741824.0, width,
               static_cast<double>(2 * half) / 1073741824.0);
  };
  check_ids_fit(bytes.size() / 2, 2);
  vocabulary_ = options.vocabulary ? *options.vocabulary : char_vocabulary(bytes, path_);
  KILN_CHECK(vocabulary_.kind == VocabularyKind::chars,
             "token file {}: a character vocabulary was expected", path_);
  const std::int64_t characters = utf8_length(bytes, path_);
  const int width = vocabulary_.size <= 65536 ? 2 : 4;
  check_ids_fit(static_cast<std::uint64_t>(characters) * width, width);
  const std::string source = "token file " + path_;
  try {
    if (width == 2)
      narrow_ids_.resize(static_cast<std::size_t>(characters));
    else
      wide_ids_.resize(static_cast<std::size_t>(characters));
  } catch (const std::bad_alloc&) {  // a limit the host's figures do not show (ulimit -v, cgroups)
    KILN_THROW(
        "token file {} read as characters ({} bytes): the ids of its {} characters take {:.1f} "
        "GiB, which could not be allocated; read it as bytes (tokens:PATH), or use a shorter text",
        path_, bytes.size(), characters, static_cast<double>(characters) * width / 1073741824.0);
  }
  if (width == 2)
    utf8_ids(bytes, source, vocabulary_, narrow_ids_.data());  // UTF-8 checked above
  else
    utf8_ids(bytes, source, vocabulary_, wide_ids_.data());
  size_ = characters;
  mapping_ = Mapping();  // the ids are copied out
}

std::string TokenSequence::describe() const {
  return fmt::format("{} tokens of {} ({} tokens, {} vocabulary of {})", format_, path_, size_,
                     vocabulary_kind_name(vocabulary_.kind), vocabulary_.size);
}

}  // namespace kiln
