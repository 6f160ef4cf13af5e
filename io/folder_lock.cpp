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

namespace kiln {

namespace {

std::string read_holder(int fd) {
  char text[256] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string_view holder(text, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0'))
    holder.remove_suffix(1);
  return holder.empty() ? "another process" : std::string(holder);
}

std::string describe_this_process() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const auto now =
      std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("process {} on {} since {:%Y-%m-%d %H:%M:%S} UTC\n", ::getpid(), host, now);
}

}  // namespace

FolderLock::FolderLock(const std::string& folder, const std::string& what) {
  const std::string path = folder + "/lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  KILN_CHECK(fd_ >= 0, "cannot create the lock file '{}' of {} '{}': {}", path, what, folder,
             std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string holder = read_holder(fd_);
    ::close(fd_);
    fd_ = -1;
    KILN_CHECK(error == EWOULDBLOCK, "cannot lock {} '{}': {}", what, folder, std::strerror(error));
    KILN_THROW("{} '{}' is in use by another run ({}); wait for it to end or give another folder",
               what, folder, holder);
  }
  const std::string me = describe_this_process();
  // Without the text the lock still holds; only a second run's message would lack the holder.
  [[maybe_unused]] const bool written =
      ::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, me.data(), me.size(), 0) >= 0;
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace kiln
