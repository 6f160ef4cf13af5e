// Opening a file kiln writes (a lock, a checkpoint piece, a temporary, a log, a table): never
// through a symbolic link, and only a regular file. A link planted where kiln writes would get
// the file it points to truncated or appended to; a FIFO or a device would block or swallow the
// output. Every file kiln writes is opened here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kiln {

class OutputFile {
 public:
  // `flags`: O_WRONLY or O_RDWR, with O_CREAT, O_TRUNC, O_APPEND or O_EXCL as wanted; O_NOFOLLOW
  // and O_CLOEXEC are always added. Throws kiln::Error naming `path` and what it is for when it
  // is a symbolic link, not a regular file, or cannot be opened; messages read "{what} file
  // 'PATH' ...", so `what` is a phrase such as "TrainerOptions::log_json" or "the".
  OutputFile(const std::string& path, int flags, std::string_view what);
  ~OutputFile();
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Writes all of `bytes` (retrying short writes); throws naming the file (disk full?).
  void write_all(std::string_view bytes) const;

 private:
  std::string path_;
  std::string what_;
  int fd_ = -1;
};

// Writes `text` to `path`, replacing what it held, through OutputFile: for the tables and
// reports the apps write.
void write_output_file(const std::string& path, std::string_view text, std::string_view what);

// Throws kiln::Error when `output` is the same file as one of `inputs` (the same device and
// inode, whatever the path: a link, "./", another mount of it): a log pointed at the training
// CSV would append to the user's data. Paths that do not exist yet are no input.
void check_output_is_no_input(const std::string& output, std::string_view what,
                              const std::vector<std::string>& inputs);

}  // namespace kiln
