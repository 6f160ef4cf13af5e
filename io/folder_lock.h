// FolderLock: keeps a second run out of a folder in use. An flock(2) on <folder>/lock, which the
// kernel releases when the holder exits in any way (kill -9 included), so a lock never goes
// stale; the file says who holds it, for the message the second run prints.
#pragma once

#include <string>

namespace kiln {

class FolderLock {
 public:
  // Throws kiln::Error naming the folder and the process that holds it (pid, host, start time).
  // `what` names the folder's role in the message ("checkpoint folder").
  FolderLock(const std::string& folder, const std::string& what);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace kiln
