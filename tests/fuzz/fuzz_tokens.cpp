// Token files: the input's first byte picks how the rest is read (bytes, characters, nanoGPT's
// uint16, with or without a vocabulary size; an llm.c .bin is recognised by its magic whatever is
// asked), then the file is opened, every id checked, and the last token read. A kiln::Error is
// the expected answer to a bad file; anything else (a crash, a sanitizer report, another
// exception) is a bug.
#include <cstdint>

#include "kiln/core/error.h"
#include "kiln/data/token_file.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "tests/fuzz/fuzz_message.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  kiln::TokenFileOptions options;
  const std::uint8_t mode = data[0];
  options.encoding = static_cast<kiln::TokenEncoding>(mode % 3);
  if (mode & 0x80) options.vocab_size = 1 + (mode & 0x7f) * 512;
  try {
    const kiln::TokenSequence tokens(kiln::fuzz::write_input("tokens.bin", data + 1, size - 1),
                                     options);
    if (tokens.size() > 0) (void)tokens[tokens.size() - 1];
    (void)tokens.describe();
  } catch (const kiln::Error& e) {
    kiln::fuzz::check_message(e);
  }
  return 0;
}
