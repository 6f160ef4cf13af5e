// The harness's runner: backend switching, the comparison of two runs, and seeded inputs.
#include "tests/ops/cases/harness.h"

#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "kiln/core/cpu_compute.h"
#include "tests/ops/cases/suites.h"
#include "tests/support/tensor_testing.h"

namespace kiln::ops_testing {

namespace {

// Restores the process's CPU compute path and matmul precision when a run is done.
class SettingsGuard {
 public:
  SettingsGuard() : compute_(cpu_compute()), precision_(matmul_precision()) {}
  ~SettingsGuard() {
    set_cpu_compute(compute_);
    set_matmul_precision(precision_);
  }
  SettingsGuard(const SettingsGuard&) = delete;
  SettingsGuard& operator=(const SettingsGuard&) = delete;

 private:
  CpuCompute compute_;
  MatmulPrecision precision_;
};

Outputs run_on(const OpCase& c, Side side, MatmulPrecision precision) {
  const SettingsGuard guard;
  set_matmul_precision(precision);
  if (side != Side::cuda)
    set_cpu_compute(side == Side::onednn ? CpuCompute::onednn : CpuCompute::reference);
  Outputs out = c.run(side == Side::cuda ? Device::cuda(0) : Device::cpu());
  for (auto& [name, t] : out) t = host(t);
  return out;
}

// Elementwise closeness with NaN matching NaN and infinities matching exactly.
::testing::AssertionResult close(const Tensor& actual, const Tensor& expected, Tolerance tol) {
  if (actual.shape() != expected.shape() || actual.dtype() != expected.dtype())
    return ::testing::AssertionFailure()
           << "got " << actual.str() << ", expected " << expected.str();
  if (actual.dtype() == DType::i32) {
    if (actual.to_vector<std::int32_t>() == expected.to_vector<std::int32_t>())
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "int32 values differ";
  }
  if (actual.dtype() == DType::bf16) {
    Tensor a = actual, e = expected;
    const auto* pa = static_cast<const std::uint16_t*>(a.raw_data());
    const auto* pe = static_cast<const std::uint16_t*>(e.raw_data());
    for (std::int64_t i = 0; i < a.numel(); ++i)
      if (pa[i] != pe[i]) return ::testing::AssertionFailure() << "bf16 bits differ at " << i;
    return ::testing::AssertionSuccess();
  }
  std::vector<float> a = actual.to_vector<float>(), e = expected.to_vector<float>();
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::isinf(e[i]) || std::isinf(a[i])) {
      if (a[i] != e[i])
        return ::testing::AssertionFailure()
               << "element " << i << " is " << a[i] << ", expected " << e[i];
      a[i] = e[i] = 0.0f;  // matched: leave them out of the difference
    }
  return testing::all_close(a, e, tol.rtol, tol.atol);
}

::testing::AssertionResult same_bits(const Tensor& a, const Tensor& b) {
  if (a.nbytes() != b.nbytes()) return ::testing::AssertionFailure() << "sizes differ";
  const auto* pa = static_cast<const unsigned char*>(a.raw_data());
  const auto* pb = static_cast<const unsigned char*>(b.raw_data());
  for (std::size_t i = 0; i < a.nbytes(); ++i)
    if (pa[i] != pb[i]) return ::testing::AssertionFailure() << "byte " << i << " differs";
  return ::testing::AssertionSuccess();
}

const char* side_name(Side side) {
  switch (side) {
    case Side::reference: return "reference";
    case Side::onednn: return "onednn";
    case Side::cuda: return "cuda";
  }
  return "?";
}

}  // namespace

std::vector<OpCase>& op_cases() {
  static std::vector<OpCase> cases;
  return cases;
}

std::vector<GradientCase>& gradient_cases() {
  static std::vector<GradientCase> cases;
  return cases;
}

AddCases::AddCases(std::vector<OpCase> cases) {
  for (OpCase& c : cases) op_cases().push_back(std::move(c));
}
AddCases::AddCases(std::vector<GradientCase> cases) {
  for (GradientCase& c : cases) gradient_cases().push_back(std::move(c));
}

bool sanitized_build() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#else
  return false;
#endif
}

bool has_kernel(const std::string& op, Side side) {
  const Backend wanted = side == Side::reference ? Backend::reference
                         : side == Side::onednn  ? Backend::onednn
                                                 : Backend::cuda;
  // Read once: kernels register when the library loads, and this runs for every case of every
  // group while GoogleTest registers the suites (a copy of the table each time was a sixth of an
  // ASan test process's start-up).
  static const std::set<std::pair<std::string, Backend>> kernels = [] {
    std::set<std::pair<std::string, Backend>> all;
    for (const KernelInfo& k : registered_kernels()) all.insert({k.op, k.backend});
    return all;
  }();
  return kernels.contains({op, wanted});
}

std::vector<std::string> ops_of_group(const std::string& group, Side side) {
  std::set<std::string> ops;
  for (const OpCase& c : op_cases())
    if (c.group == group && has_kernel(c.op, side)) ops.insert(c.op);
  if (ops.empty()) return {"none"};
  return {ops.begin(), ops.end()};
}

int expect_op_parity(const std::string& op, Side other) {
  int compared = 0;
  for (const OpCase& c : op_cases()) {
    if (c.op != op || !has_kernel(c.op, other)) continue;
    if (c.large && sanitized_build()) continue;
    std::vector<std::pair<MatmulPrecision, Tolerance>> precisions;
    if (other == Side::onednn) {
      const Tolerance cpu = c.cpu.value_or(c.fp32);
      precisions.push_back({MatmulPrecision::fp32, cpu});
      for (const auto& [precision, tol] : c.reduced)
        if (precision == MatmulPrecision::bf16) precisions.push_back({precision, cpu});
    } else {
      precisions.push_back({MatmulPrecision::fp32, c.fp32});
      precisions.insert(precisions.end(), c.reduced.begin(), c.reduced.end());
    }
    for (const auto& [precision, tol] : precisions) {
      SCOPED_TRACE(::testing::Message()
                   << c.op << " [" << c.name << "] at " << matmul_precision_name(precision)
                   << ", reference vs " << side_name(other));
      const Outputs expected = run_on(c, Side::reference, precision);
      const Outputs actual = run_on(c, other, precision);
      if (actual.size() != expected.size()) {
        ADD_FAILURE() << "the runs gave " << actual.size() << " and " << expected.size()
                      << " outputs";
        continue;
      }
      for (std::size_t i = 0; i < actual.size(); ++i)
        EXPECT_TRUE(close(actual[i].second, expected[i].second, tol))
            << "output " << actual[i].first;
      if (c.repeatable) {
        const Outputs again = run_on(c, other, precision);
        for (std::size_t i = 0; i < again.size(); ++i)
          EXPECT_TRUE(same_bits(again[i].second, actual[i].second))
              << "output " << again[i].first << " changed between two identical runs";
      }
      ++compared;
    }
  }
  return compared;
}

void expect_a_suite_per_group(const std::string& prefix) {
  std::set<std::string> suites;
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit.total_test_suite_count(); ++i)
    suites.insert(unit.GetTestSuite(i)->name());
  for (const std::string& group : groups())
    EXPECT_TRUE(suites.count(prefix + "_" + group)) << "no suite " << prefix << "_" << group;
}

Tensor input(const Shape& shape, std::uint32_t seed, float low, float high) {
  return testing::random_tensor(shape, seed, low, high);
}

double weighted_sum(const Tensor& y, const Tensor& w) {
  const std::vector<float> a = y.to_vector<float>(), b = w.to_vector<float>();
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += static_cast<double>(a[i]) * b[i];
  return sum;
}

Tensor with_sentinels(Tensor t) {
  float* p = t.data<float>();
  const std::int64_t n = t.numel();
  if (n > 0) p[0] = std::numeric_limits<float>::quiet_NaN();
  if (n > 2) p[n / 2] = std::numeric_limits<float>::infinity();
  if (n > 1) p[n - 1] = -std::numeric_limits<float>::infinity();
  return t;
}

}  // namespace kiln::ops_testing
