// Running the apps as a user runs them, for the end-to-end tests: through the shell, with the
// exit status, stdout and stderr kept; and the check of a failing run's one-line message.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kiln::testing {

struct Outcome {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `program args` through the shell with stderr sent to a file, as a terminal user would.
inline Outcome run(const std::string& program, const std::string& args) {
  static int counter = 0;  // and the process id: ctest -j runs each test in a process of its own
  const std::string err_path = ::testing::TempDir() + "kiln_apps_stderr_" +
                               std::to_string(getpid()) + "_" + std::to_string(counter++);
  const std::string command = program + " " + args + " 2>" + err_path;
  Outcome result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;)
    result.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.err = read_file(err_path);
  std::filesystem::remove(err_path);
  return result;
}

inline Outcome train(const std::string& args) { return run(KILN_TRAIN_BIN, args); }
inline Outcome bench(const std::string& args) { return run(KILN_BENCH_BIN, args); }
#ifdef KILN_GENERATE_BIN
inline Outcome generate(const std::string& args) { return run(KILN_GENERATE_BIN, args); }
#endif

// `length` characters of words over the first `letters` letters ("abc dcab ..."), from an LCG
// seeded with `seed`: a text for the token-data and GPT runs, the same on every machine.
inline std::string lcg_words(std::uint32_t seed, int length, int letters) {
  std::string text;
  std::uint32_t state = seed;
  for (int i = 0; i < length; ++i) {
    state = state * 1664525u + 1013904223u;
    text += (state >> 28) < 3 ? ' ' : static_cast<char>('a' + (state >> 16) % letters);
  }
  return text;
}

// A failing run: exit status 1, nothing but one line on stderr starting with the program's name.
inline void expect_one_line_error(const Outcome& o, const std::string& program,
                                  const std::string& needle) {
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_EQ(o.err.rfind(program + ": ", 0), 0u) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_NE(o.err.find(needle), std::string::npos) << "expected '" << needle << "' in: " << o.err;
}

inline constexpr const char* kSmallData =
    "--model mlp:784-32-10 --data article --samples 512 --batch-size 64";
inline const std::string kSmallRun = std::string(kSmallData) + " --epochs 1";

}  // namespace kiln::testing
