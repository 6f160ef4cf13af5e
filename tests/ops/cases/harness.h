// The op parity harness: one table of cases (tests/ops/cases/<group>_cases.cpp), each running one
// op-table op on inputs made from fixed seeds, and the runner that compares two backends on every
// case (reference vs oneDNN in kiln_tests, reference vs CUDA in kiln_gpu_tests), at each
// precision the case lists, printing the worst abs/rel difference on failure. A registered op
// without a case fails tests/ops/coverage_test.cpp; so does a backward without a gradient case.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/op_table.h"
#include "kiln/core/precision.h"
#include "kiln/core/tensor.h"

namespace kiln::ops_testing {

// The groups of ops, one gtest suite each (OpParity_<group>): a sticky CUDA error voids one group.
inline const std::vector<std::string>& groups() {
  static const std::vector<std::string> g = {"Elementwise", "Activation",    "Bias",    "Reduce",
                                             "Softmax",     "Metrics",       "Gemm",    "Linear",
                                             "Conv2d",      "Normalization", "Dropout", "Random",
                                             "Optimizer",   "Pool2d",        "Sequence"};
  return g;
}

// |b - a| <= atol + rtol |a| per element; NaN must meet NaN, and infinities their own sign.
struct Tolerance {
  float rtol = 1e-5f;
  float atol = 1e-6f;
};
inline constexpr Tolerance kExact{0.0f, 0.0f};
inline constexpr Tolerance kElementwise{1e-5f, 1e-6f};
inline constexpr Tolerance kReduction{1e-4f, 1e-5f};

// The named outputs of one run, read back to the host.
using Outputs = std::vector<std::pair<std::string, Tensor>>;

struct OpCase {
  std::string op;     // its op-table name (kiln-ops)
  std::string group;  // one of groups()
  std::string name;   // what this case holds: shapes, sentinels, aliasing, "=" or "+="
  // Builds the inputs on the CPU from fixed seeds, moves them to `device`, runs the op there.
  std::function<Outputs(Device device)> run;
  Tolerance fp32 = kElementwise;
  // Matrix-product precisions the case also runs at on a GPU, with their tolerance (fp32 always
  // runs). Against oneDNN, bf16 runs at the CPU tolerance (both paths round the inputs to bf16
  // alike) and tf32 not at all (a GPU format: the CPU stays fp32).
  std::vector<std::pair<MatmulPrecision, Tolerance>> reduced = {};
  // The reference-vs-oneDNN tolerance where it is tighter than fp32 (the GPU's).
  std::optional<Tolerance> cpu = std::nullopt;
  bool large = false;      // past the L2 cache: Release builds only (not under the sanitizers)
  bool repeatable = true;  // backend b run twice gives the same bits
};

// A finite-difference check of one backward op on the CPU reference.
struct GradientCase {
  std::string op;  // the backward op it checks
  std::string name;
  std::function<::testing::AssertionResult()> check;
};

std::vector<OpCase>& op_cases();
std::vector<GradientCase>& gradient_cases();
// Static objects in the cases files add their cases at load time.
struct AddCases {
  explicit AddCases(std::vector<OpCase> cases);
  explicit AddCases(std::vector<GradientCase> cases);
};

// Whether this binary is a sanitizer build (large cases are left out there).
bool sanitized_build();

// The two sides of a comparison: the reference (CPU, cpu_compute reference) and one other.
enum class Side : unsigned char { reference, onednn, cuda };
// Whether `op` has a kernel on `side` in this build.
bool has_kernel(const std::string& op, Side side);
// The ops of `group` with a kernel on `side` in this build, sorted; {"none"} when there is none
// (its test then skips, saying so, and the group's suite is still there).
std::vector<std::string> ops_of_group(const std::string& group, Side side);
// Runs every case of `op` on the reference and on `other` and adds a failure per output that
// differs. Returns how many (case, precision) pairs it compared.
int expect_op_parity(const std::string& op, Side other);

// Seeded inputs: uniform in [low, high) (tests/support random_tensor), and with NaN, +inf and
// -inf written at the first, middle and last elements.
Tensor input(const Shape& shape, std::uint32_t seed, float low = -1.0f, float high = 1.0f);
Tensor with_sentinels(Tensor t);
// `t` read back to the host (itself when it is there already: each run makes its own outputs).
inline Tensor host(const Tensor& t) { return t.to(Device::cpu()); }
// sum_i y_i w_i in double, on the CPU: the loss whose gradient in y is w (gradient cases).
double weighted_sum(const Tensor& y, const Tensor& w);

}  // namespace kiln::ops_testing
