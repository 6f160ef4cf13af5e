// Writing files so that they survive a crash or a power cut: data and folder entries are fsynced
// before a write counts as done. The checkpoint folders (checkpoint/checkpoint_folder.h) are
// built on these; a file on its own is replaced atomically (a temporary file, then rename).
#pragma once

#include <string>
#include <string_view>

namespace kiln {

// Creates (or truncates) `path`, writes `bytes` and fsyncs it. Throws kiln::Error naming the
// file (disk full, no permission).
void write_file_durably(const std::string& path, std::string_view bytes);
// fsyncs a folder, so that the entries created or renamed in it are on disk.
void sync_folder(const std::string& path);
// Writes `bytes` to `path` through a temporary file in the same folder and a rename, both
// synced, so a crash leaves either the old file or the new one, never a torn one.
void write_file_atomically(const std::string& path, std::string_view bytes);
// The whole file; throws kiln::Error naming it when it cannot be read or is not a regular file
// (core/input_file.h).
std::string read_whole_file(const std::string& path);

}  // namespace kiln
