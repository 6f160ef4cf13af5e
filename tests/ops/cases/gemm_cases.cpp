// Cases of gemm: every transpose combination at odd sizes with several (alpha, beta) ("=" and
// "+="), beta = 0 over a NaN output, an empty inner dimension (c = beta c), operands and output
// that are slices (offset pointers), NaN/inf in an operand, matmul (which allocates and calls
// gemm), and TF32/bf16 at their tolerances.
#include <cmath>
#include <limits>

#include "kiln/core/ops.h"
#include "tests/ops/cases/harness.h"

namespace kiln::ops_testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

struct Dims {
  std::int64_t m, n, k;
};

// Entries of op(a) @ op(b) for inputs in [-1, 1) are of size ~sqrt(k) / 3, and rounding grows
// with k; the absolute floor is a fraction of that scale, so an entry that cancels to near zero
// does not fail on its relative error alone. The GPU's floor is 1e-4, oneDNN's 1e-5.
Tolerance gemm_tol(std::int64_t k, float alpha, float fraction, float rtol) {
  return {rtol, fraction * std::sqrt(static_cast<float>(std::max<std::int64_t>(k, 1))) *
                    std::max(1.0f, std::abs(alpha))};
}

OpCase gemm_case(std::string what, Dims d, bool ta, bool tb, float alpha, float beta,
                 std::uint32_t seed, bool sentinels = false) {
  OpCase c{
      "gemm", "Gemm", std::move(what), [=](Device dev) -> Outputs {
        Tensor a = input(ta ? Shape{d.k, d.m} : Shape{d.m, d.k}, seed);
        if (sentinels) a = with_sentinels(a);
        const Tensor b = input(tb ? Shape{d.n, d.k} : Shape{d.k, d.n}, seed + 1);
        // beta == 0 must not read the output: NaN there must not reach the result.
        Tensor out = beta == 0.0f ? Tensor::full({d.m, d.n}, kNaN) : input({d.m, d.n}, seed + 2);
        out = out.to(dev);
        gemm(a.to(dev), ta, b.to(dev), tb, out, alpha, beta);
        return {{"out", out}};
      }};
  c.fp32 = gemm_tol(d.k, alpha, 1e-4f, 1e-4f);
  c.cpu = gemm_tol(d.k, alpha, 1e-5f, 1e-5f);
  // The tensor cores round the inputs to 10- / 7-bit mantissas: about 1e-3 / 1e-2 of the scale.
  c.reduced = {{MatmulPrecision::tf32, gemm_tol(d.k, alpha, 1e-2f, 1e-2f)},
               {MatmulPrecision::bf16, gemm_tol(d.k, alpha, 5e-2f, 5e-2f)}};
  return c;
}

std::string describe(Dims d, bool ta, bool tb, float alpha, float beta) {
  return std::to_string(d.m) + "x" + std::to_string(d.n) + "x" + std::to_string(d.k) +
         (ta ? " aT" : "") + (tb ? " bT" : "") + " alpha " + std::to_string(alpha) + " beta " +
         std::to_string(beta);
}

std::vector<OpCase> cases() {
  const Dims dims[] = {{1, 1, 1},     {7, 33, 1},    {33, 7, 1000},    {1, 1000, 7},
                       {1000, 33, 7}, {129, 65, 33}, {257, 300, 1000}, {64, 65, 300}};
  const float scalings[][2] = {{1.0f, 0.0f}, {0.5f, 1.0f}, {-2.0f, 0.25f}};
  std::vector<OpCase> out;
  std::uint32_t seed = 100;
  for (const Dims& d : dims)
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (const auto& [alpha, beta] : scalings) {
          out.push_back(gemm_case(describe(d, ta, tb, alpha, beta), d, ta, tb, alpha, beta, seed));
          seed += 3;
        }
  out.push_back(
      gemm_case("article 256x1024x784 bT", {256, 1024, 784}, false, true, 1.0f, 0.0f, 90));
  OpCase big =
      gemm_case("1024x1024x1024 (past L2)", {1024, 1024, 1024}, false, false, 1.0f, 0.0f, 95);
  big.large = true;
  out.push_back(std::move(big));
  out.push_back(gemm_case("NaN/inf in a, 7x5x33", {7, 5, 33}, false, false, 1.0f, 0.0f, 97, true));
  // An empty inner dimension: c = beta c ("+="), and c = 0 over NaN ("=").
  for (float beta : {0.5f, 0.0f})
    out.push_back(gemm_case("empty inner dimension beta " + std::to_string(beta), {7, 5, 0}, false,
                            false, 1.0f, beta, 13));
  out.push_back(gemm_case("empty output 0x5x3", {0, 5, 3}, false, false, 1.0f, 0.0f, 14));
  // Rows [3, 10) of a (13, 33) matrix start 99 floats in: an offset pointer, not 256-aligned.
  OpCase sliced{"gemm", "Gemm", "slices of a, b and out", [](Device d) -> Outputs {
                  const Tensor a = input({13, 33}, 31).to(d), b = input({40, 33}, 32).to(d);
                  Tensor out = Tensor::zeros({20, 33}, DType::f32, d);
                  Tensor rows = out.slice(5, 12);
                  gemm(a.slice(3, 10), false, b.slice(1, 34), true, rows);
                  return {{"out", out}};
                }};
  sliced.fp32 = gemm_tol(33, 1.0f, 1e-4f, 1e-4f);
  sliced.cpu = gemm_tol(33, 1.0f, 1e-5f, 1e-5f);
  out.push_back(std::move(sliced));
  // matmul: the allocating convenience over gemm, on the operands' device.
  OpCase through_matmul{
      "gemm", "Gemm", "through matmul, 7x1000x33 and transposed", [](Device d) -> Outputs {
        const Tensor a = input({7, 33}, 21).to(d), b = input({33, 1000}, 22).to(d);
        const Tensor at = input({33, 7}, 23).to(d), bt = input({1000, 33}, 24).to(d);
        return {{"a b", matmul(a, b)}, {"at' bt'", matmul(at, bt, true, true)}};
      }};
  through_matmul.fp32 = gemm_tol(33, 1.0f, 1e-4f, 1e-4f);
  through_matmul.cpu = gemm_tol(33, 1.0f, 1e-5f, 1e-5f);
  out.push_back(std::move(through_matmul));
  return out;
}

const AddCases kCases(cases());

}  // namespace
}  // namespace kiln::ops_testing
