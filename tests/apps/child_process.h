// Running train as a child process the test can signal: start it, wait for its exit status
// (128 + the signal's number when a signal ended it, as a shell reports it), read the weights of
// the checkpoint it left.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kiln/checkpoint/checkpoint.h"

namespace kiln::testing {

// Starts `args` with its stderr sent to `err_path` and, when one is given, its stdout to
// `out_path`.
inline pid_t start(const std::vector<std::string>& args, const std::string& err_path = "/dev/null",
                   const std::string& out_path = "") {
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(err, STDERR_FILENO);
    if (!out_path.empty())
      dup2(open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), STDOUT_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

inline int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

inline std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The bytes of model.safetensors in the checkpoint `dir`'s latest names; "" without one.
inline std::string weights_of(const std::string& dir) {
  const auto saved = kiln::read_checkpoint(dir);
  return saved ? file_text(saved->folder + "/model.safetensors") : "";
}

}  // namespace kiln::testing
