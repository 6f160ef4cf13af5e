// The Python of the test venv (scripts/test-venv.sh), for tests that check an output with its
// real consumer: KILN_TEST_PYTHON names it; a test without it skips, visibly.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <unistd.h>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace kiln::testing {

// KILN_TEST_PYTHON, or "" when unset.
inline std::string test_python() {
  const char* python = std::getenv("KILN_TEST_PYTHON");
  return python != nullptr ? python : "";
}

#define KILN_SKIP_WITHOUT_TEST_PYTHON()                                                     \
  if (::kiln::testing::test_python().empty())                                               \
  GTEST_SKIP()                                                                              \
      << "KILN_TEST_PYTHON is unset: export KILN_TEST_PYTHON=$(bash scripts/test-venv.sh) " \
         "to check this output with its real consumer"

struct PythonRun {
  int exit_code = -1;
  std::string out;  // stdout; stderr goes to the test's own
};

// Runs `script` (Python source) with the test venv's Python and `args` (shell words, quoted by
// the caller).
inline PythonRun run_python(const std::string& script, const std::string& args) {
  const std::string path =
      ::testing::TempDir() + "kiln_test_script_" + std::to_string(getpid()) + ".py";
  std::ofstream(path) << script;
  PythonRun run;
  FILE* pipe = popen(("'" + test_python() + "' " + path + " " + args).c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> buffer{};
  for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;)
    run.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::remove(path.c_str());
  return run;
}

}  // namespace kiln::testing
