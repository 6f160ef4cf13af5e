// The lock file holds one line, "process PID on HOST since TIME", rewritten by each holder.
#include "kiln/io/folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>

#include <fmt/chrono.h>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"

namespace kiln {

namespace {

std::string read_holder(int fd) {
  char text[256] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string_view holder(text, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0'))
    holder.remove_suffix(1);
  return holder.empty() ? "another process" : bare_excerpt(holder, sizeof text);  // file content
}

std::string describe_this_process() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const auto now =
      std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("process {} on {} since {:%Y-%m-%d %H:%M:%S} UTC\n", ::getpid(), host, now);
}

}  // namespace

FolderLock::FolderLock(const std::string& folder, const std::string& what)
    : file_(folder + "/lock", O_RDWR | O_CREAT, fmt::format("{} '{}': the lock", what, folder)) {
  if (::flock(file_.fd(), LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    KILN_CHECK(error == EWOULDBLOCK, "cannot lock {} '{}': {}", what, folder, std::strerror(error));
    KILN_THROW("{} '{}' is in use by another run ({}); wait for it to end or give another folder",
               what, folder, read_holder(file_.fd()));
  }
  const std::string me = describe_this_process();
  // Without the text the lock still holds; only a second run's message would lack the holder.
  [[maybe_unused]] const bool written =
      ::ftruncate(file_.fd(), 0) == 0 && ::pwrite(file_.fd(), me.data(), me.size(), 0) >= 0;
}

FolderLock::~FolderLock() = default;

}  // namespace kiln
