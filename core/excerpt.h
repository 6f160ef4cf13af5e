// Quoting bytes that came from a file in an error message. A file can hold anything: a 5 MB
// cell, terminal escape sequences that retitle or clear the user's terminal, a NUL that cuts the
// message off, bytes that are not UTF-8. Every excerpt of file content in a message goes through
// excerpt() (or bare_excerpt()), which escapes what a terminal would act on and bounds the length.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kiln {

// Enough to recognise a cell or a header in the file; the full size is stated beside a cut one.
inline constexpr std::size_t kExcerptBytes = 64;

// `bytes` quoted for a message: 'abc'. Control bytes (C0, DEL), C1 controls, bidirectional
// overrides and bytes that are not well-formed UTF-8 are written as \xNN, one per byte; other
// UTF-8 text is kept. Past max_bytes of input the excerpt is cut at a character boundary and the
// full size follows: 'abc…' (5242880 bytes). The result holds at most 4 * max_bytes + 40 bytes.
std::string excerpt(std::string_view bytes, std::size_t max_bytes = kExcerptBytes);

// The same without the quotes, for text that brings its own (a JSON value, a list of names):
// {"dtype": "F64"} or {"dtype": "F6… (5242880 bytes).
std::string bare_excerpt(std::string_view bytes, std::size_t max_bytes = kExcerptBytes);

// A path found on disk rather than given by the user (a listed file name, a link's target):
// escaped as bare_excerpt() does, cut only past the longest path a system takes (4096 bytes).
std::string shown_path(std::string_view path);

// True when `bytes` is UTF-8 text with nothing excerpt() would escape: for text that is stored
// and shown later (a checkpoint's settings), refused at reading rather than escaped at each use.
bool is_plain_text(std::string_view bytes);

}  // namespace kiln
