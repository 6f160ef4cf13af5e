// POSIX open/write/fsync: std::ofstream cannot fsync. Files are opened through OutputFile, so
// that none is written through a symbolic link.
#include "kiln/io/durable_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "kiln/core/error.h"
#include "kiln/core/input_file.h"
#include "kiln/core/output_file.h"

namespace kiln {

namespace {

class Fd {
 public:
  Fd(const std::string& path, int flags) : fd_(::open(path.c_str(), flags | O_CLOEXEC, 0644)) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

void write_file_durably(const std::string& path, std::string_view bytes) {
  const OutputFile file(path, O_WRONLY | O_CREAT | O_TRUNC, "the");
  file.write_all(bytes);
  KILN_CHECK(::fsync(file.fd()) == 0, "cannot sync '{}' to disk: {}", path, std::strerror(errno));
}

void sync_folder(const std::string& path) {
  Fd fd(path, O_RDONLY | O_DIRECTORY);
  KILN_CHECK(fd.get() >= 0, "cannot open folder '{}': {}", path, std::strerror(errno));
  KILN_CHECK(::fsync(fd.get()) == 0, "cannot sync folder '{}' to disk: {}", path,
             std::strerror(errno));
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  const std::string temporary = path + ".tmp";
  std::error_code ec;
  std::filesystem::remove(temporary,
                          ec);  // a leftover (or a planted link) is replaced, never followed
  write_file_durably(temporary, bytes);
  std::filesystem::rename(temporary, path, ec);
  KILN_CHECK(!ec, "cannot rename '{}' to '{}': {}", temporary, path, ec.message());
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  sync_folder(folder.empty() ? "." : folder.string());
}

std::string read_whole_file(const std::string& path) { return read_input_file(path, "file"); }

}  // namespace kiln
