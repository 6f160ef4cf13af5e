// O_NOFOLLOW refuses a link at the last component (ELOOP); O_NONBLOCK keeps the open of a FIFO
// without a reader from blocking forever (ENXIO), and is cleared once fstat has shown a regular
// file. O_TRUNC before the check is harmless: it truncates only regular files.
#include "kiln/core/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kiln/core/error.h"

namespace kiln {

namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

OutputFile::OutputFile(const std::string& path, int flags, std::string_view what)
    : path_(path), what_(what) {
  fd_ = ::open(path.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  const int error = errno;
  KILN_CHECK(fd_ >= 0 || error != ELOOP,
             "{} file '{}' is a symbolic link; kiln does not write through links: remove the link, "
             "or give the path of a regular file",
             what, path);
  KILN_CHECK(fd_ >= 0 || error != ENXIO,
             "{} file '{}' is a FIFO or a device with no reader; give the path of a regular file",
             what, path);
  KILN_CHECK(fd_ >= 0, "cannot open {} file '{}' for writing: {}", what, path,
             std::strerror(error));
  struct stat st;
  const bool known = ::fstat(fd_, &st) == 0;
  if (!known || !S_ISREG(st.st_mode)) {
    const std::string kind = known ? kind_of(st.st_mode) : std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    KILN_THROW("{} file '{}' is {}; kiln writes only regular files: give the path of a file", what,
               path, kind);
  }
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)), what_(std::move(other.what_)), fd_(other.fd_) {
  other.fd_ = -1;
}

void OutputFile::write_all(std::string_view bytes) const {
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    KILN_CHECK(n > 0, "writing {} file '{}' failed (disk full?): {}", what_, path_,
               std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

void write_output_file(const std::string& path, std::string_view text, std::string_view what) {
  OutputFile(path, O_WRONLY | O_CREAT | O_TRUNC, what).write_all(text);
}

void check_output_is_no_input(const std::string& output, std::string_view what,
                              const std::vector<std::string>& inputs) {
  struct stat out;
  if (output.empty() || ::stat(output.c_str(), &out) != 0) return;
  for (const std::string& input : inputs) {
    struct stat in;
    KILN_CHECK(
        ::stat(input.c_str(), &in) != 0 || in.st_dev != out.st_dev || in.st_ino != out.st_ino,
        "{} file '{}' is the input '{}': writing it would change the data this run reads; "
        "give another path",
        what, output, input);
  }
}

}  // namespace kiln
