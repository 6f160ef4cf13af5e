// open, then fstat on the descriptor (not stat on the path, which could change between the two):
// the kind and the size are those of the file actually read. O_NONBLOCK keeps the open of a FIFO
// without a writer from blocking before it can be refused.
#include "kiln/core/input_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#include "kiln/core/error.h"

namespace kiln {

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

InputFile::InputFile(const std::string& path, std::string_view what) : path_(path), what_(what) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  KILN_CHECK(fd_ >= 0, "cannot open {} {}: {}", what, path, std::strerror(errno));
  struct stat st;
  const bool known = ::fstat(fd_, &st) == 0;
  const int error = errno;
  if (!known || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    KILN_CHECK(known, "cannot read {} {}: {}", what, path, std::strerror(error));
    KILN_CHECK(!S_ISDIR(st.st_mode), "{} is a folder; a file was expected", path);
    KILN_THROW(
        "{} {} is {}, not a regular file: kiln reads only regular files (copy the data "
        "into one)",
        what, path, kind_of(st.st_mode));
  }
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  size_ = static_cast<std::uint64_t>(st.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string InputFile::read_all() const {
  std::string bytes;
  try {
    bytes.resize(static_cast<std::size_t>(size_));
  } catch (const std::bad_alloc&) {
    KILN_THROW("{} {}: cannot allocate the {} bytes to read it (out of memory)", what_, path_,
               size_);
  } catch (const std::length_error&) {
    KILN_THROW("{} {}: {} bytes are more than this machine can address", what_, path_, size_);
  }
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    KILN_CHECK(n >= 0, "cannot read {} {}: {}", what_, path_, std::strerror(errno));
    if (n == 0) break;  // shrunk since it was opened: what is there
    done += static_cast<std::size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

Mapping InputFile::map() const {
  if (size_ == 0) return {};
  KILN_CHECK(size_ <= SIZE_MAX, "{} {}: {} bytes are more than this machine can address", what_,
             path_, size_);
  void* data = ::mmap(nullptr, static_cast<std::size_t>(size_), PROT_READ, MAP_PRIVATE, fd_, 0);
  KILN_CHECK(data != MAP_FAILED, "cannot map {} {} into memory: {}", what_, path_,
             std::strerror(errno));
  return {data, size_};
}

Mapping::~Mapping() {
  if (data_ != nullptr) ::munmap(const_cast<void*>(data_), static_cast<std::size_t>(size_));
}

Mapping& Mapping::operator=(Mapping&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(const_cast<void*>(data_), static_cast<std::size_t>(size_));
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

std::string read_input_file(const std::string& path, std::string_view what) {
  return InputFile(path, what).read_all();
}

}  // namespace kiln
