// Cases of the elementwise ops: every binary op at odd and zero sizes, with out aliasing either
// input and NaN/inf sentinels; scale, axpy (+=) and fill (float32, int32, a slice of rows).
#include "kiln/core/ops.h"
#include "tests/ops/cases/harness.h"

namespace kiln::ops_testing {
namespace {

constexpr std::int64_t kSizes[] = {0, 1, 7, 33, 1000, 4099};
constexpr std::int64_t kLarge = std::int64_t{1} << 22;  // 16 MiB a tensor: past any L2

std::string sized(const char* what, std::int64_t n) {
  return std::string(what) + " n=" + std::to_string(n);
}

std::vector<OpCase> binary_cases() {
  const std::pair<BinaryOp, const char*> ops[] = {{BinaryOp::add, "add"}, {BinaryOp::sub, "sub"},
                                                  {BinaryOp::mul, "mul"}, {BinaryOp::div, "div"},
                                                  {BinaryOp::max, "max"}, {BinaryOp::min, "min"}};
  std::vector<OpCase> cases;
  auto add = [&](BinaryOp f, std::string name, std::int64_t n, int alias, bool sentinels) {
    OpCase c{"binary", "Elementwise", std::move(name), [=](Device d) -> Outputs {
               Tensor a = input({n}, 500 + static_cast<std::uint32_t>(n));
               if (sentinels) a = with_sentinels(a);
               Tensor b = input({n}, 501 + static_cast<std::uint32_t>(n), 0.25f, 2.0f);
               a = a.to(d), b = b.to(d);
               if (alias == 1) return binary(f, a, b, a), Outputs{{"out=a", a}};
               if (alias == 2) return binary(f, a, b, b), Outputs{{"out=b", b}};
               Tensor out = Tensor::empty({n}, DType::f32, d);
               binary(f, a, b, out);
               return {{"out", out}};
             }};
    c.large = n == kLarge;
    cases.push_back(std::move(c));
  };
  for (const auto& [f, name] : ops) {
    for (std::int64_t n : kSizes) add(f, sized(name, n), n, 0, false);
    add(f, sized(name, 33) + " out aliases a", 33, 1, false);
    add(f, sized(name, 33) + " out aliases b", 33, 2, false);
    add(f, sized(name, 1000) + " NaN/inf in a", 1000, 0, true);
  }
  add(BinaryOp::add, sized("add", kLarge), kLarge, 0, false);
  return cases;
}

std::vector<OpCase> other_cases() {
  std::vector<OpCase> cases;
  for (std::int64_t n : kSizes) {
    cases.push_back({"scale", "Elementwise", sized("x *= -0.37", n), [=](Device d) -> Outputs {
                       Tensor x = input({n}, 600 + static_cast<std::uint32_t>(n)).to(d);
                       scale(x, -0.37f);
                       return {{"x", x}};
                     }});
    // y + alpha x may cancel; either device may fuse it into one fma.
    OpCase axpy_case{"axpy", "Elementwise", sized("y += 1.7 x", n), [=](Device d) -> Outputs {
                       const Tensor x = input({n}, 610 + static_cast<std::uint32_t>(n)).to(d);
                       Tensor y = input({n}, 620 + static_cast<std::uint32_t>(n)).to(d);
                       axpy(1.7f, x, y);
                       return {{"y", y}};
                     }};
    axpy_case.fp32.atol = 1e-6f;
    cases.push_back(std::move(axpy_case));
    cases.push_back({"fill", "Elementwise", sized("float32 and int32", n),
                     [=](Device d) -> Outputs {
                       Tensor f = Tensor::empty({n}, DType::f32, d);
                       fill(f, -2.5f);
                       Tensor i = Tensor::empty({n}, DType::i32, d);
                       fill(i, 7.0f);
                       Tensor j = Tensor::empty({n}, DType::i32, d);
                       fill(j, -123456.0f);
                       return {{"f32", f}, {"i32 7", i}, {"i32 -123456", j}};
                     },
                     kExact});
  }
  cases.push_back({"scale", "Elementwise", "NaN/inf sentinels", [](Device d) -> Outputs {
                     Tensor x = with_sentinels(input({1000}, 630)).to(d);
                     scale(x, 3.0f);
                     return {{"x", x}};
                   }});
  // An op on a slice leaves the rows around it alone.
  cases.push_back({"scale", "Elementwise", "rows 2..5 of (10, 7)",
                   [](Device d) -> Outputs {
                     Tensor x = input({10, 7}, 700).to(d);
                     Tensor rows = x.slice(2, 5);
                     scale(rows, 3.0f);
                     return {{"x", x}};
                   },
                   kExact});
  cases.push_back({"fill", "Elementwise", "row 9 of (10, 7)",
                   [](Device d) -> Outputs {
                     Tensor x = input({10, 7}, 701).to(d);
                     Tensor row = x.slice(9, 10);
                     fill(row, 0.5f);
                     return {{"x", x}};
                   },
                   kExact});
  return cases;
}

const AddCases kBinary(binary_cases());
const AddCases kOthers(other_cases());

}  // namespace
}  // namespace kiln::ops_testing
