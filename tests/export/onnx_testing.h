// What the ONNX export tests share: kiln tensors written as .npy files, and ONNX Runtime (in the
// test venv of scripts/test-venv.sh, KILN_TEST_PYTHON) run on an exported file by
// tests/export/onnx_runtime_check.py, which compares its output with kiln's.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "kiln/core/tensor.h"

namespace kiln::testing {

// A float32 tensor as NumPy's .npy format, version 1.0 ('<f4', C order).
inline void write_npy(const std::string& path, const Tensor& t) {
  const Tensor host = t.to(Device::cpu());
  std::string shape;
  for (const std::int64_t d : host.shape().dims()) shape += std::to_string(d) + ", ";
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape + "), }";
  header.append(63 - (10 + header.size()) % 64, ' ') += '\n';  // the data starts 64-byte aligned
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const auto length = static_cast<std::uint16_t>(header.size());
  out.put(static_cast<char>(length & 0xff)).put(static_cast<char>(length >> 8));
  out << header;
  out.write(static_cast<const char*>(host.raw_data()), static_cast<std::streamsize>(host.nbytes()));
}

// The test venv's python, or "" when KILN_TEST_PYTHON is unset (the caller skips, saying so).
inline std::string test_python() {
  const char* python = std::getenv("KILN_TEST_PYTHON");
  return python ? python : "";
}

inline constexpr const char* kNoPython =
    "KILN_TEST_PYTHON is unset, so ONNX Runtime cannot run the exported file; "
    "export KILN_TEST_PYTHON=$(bash scripts/test-venv.sh) (scripts/test.sh does)";

struct OnnxRuntimeRun {
  int exit_code = -1;
  std::string output;  // the script's report: the largest differences
};

// ONNX Runtime on `onnx_path` with input `x` (batch, ...), compared with kiln's `expected`
// within `tolerance` relative to max(1, |kiln|), on the whole batch and on its first row.
inline OnnxRuntimeRun run_onnx_runtime(const std::string& onnx_path, const Tensor& x,
                                       const Tensor& expected, double tolerance = 1e-5) {
  const std::string stem = onnx_path.substr(0, onnx_path.rfind('.'));
  write_npy(stem + "_input.npy", x);
  write_npy(stem + "_expected.npy", expected);
  const std::string log = stem + "_onnxruntime.txt";
  const std::string command = test_python() + " " KILN_ONNX_RUNTIME_CHECK " '" + onnx_path + "' '" +
                              stem + "_input.npy' '" + stem + "_expected.npy' " +
                              std::to_string(tolerance) + " >'" + log + "' 2>&1";
  OnnxRuntimeRun run;
  const int status = std::system(command.c_str());
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  run.output = text.str();
  return run;
}

}  // namespace kiln::testing
