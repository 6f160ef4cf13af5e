// FolderLock: keeps a second run out of a folder in use. An flock(2) on <folder>/lock, which the
// kernel releases when the holder exits in any way (kill -9 included), so a lock never goes
// stale; the file says who holds it, for the message the second run prints. The lock is opened
// as every output is (core/output_file.h): a `lock` that is a symbolic link or not a regular file
// is refused, so a planted link cannot get another file truncated and rewritten.
#pragma once

#include <string>

#include "kiln/core/output_file.h"

namespace kiln {

class FolderLock {
 public:
  // Throws kiln::Error naming the folder and the process that holds it (pid, host, start time).
  // `what` names the folder's role in the message ("checkpoint folder"). Throws as OutputFile
  // does for a lock that is a symbolic link or not a regular file.
  FolderLock(const std::string& folder, const std::string& what);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  OutputFile file_;  // closing it releases the flock
};

}  // namespace kiln
