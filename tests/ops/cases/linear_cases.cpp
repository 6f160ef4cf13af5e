// Cases of linear_forward and linear_backward, with and without bias and ReLU, "=" and "+="
// checked, at their TF32/bf16 tolerances too; finite differences check the backward. The GPU's
// ReLU-epilogue choice and fallback report stay in tests/gpu/linear_parity_test.cpp.
#include <cmath>
#include <limits>

#include "kiln/core/cpu_compute.h"
#include "kiln/core/ops.h"
#include "tests/ops/cases/harness.h"
#include "tests/support/gradient_check.h"

namespace kiln::ops_testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

struct Dims {
  std::int64_t n, in, out;
};

Tensor maybe(bool present, const Shape& shape, std::uint32_t seed) {
  return present ? input(shape, seed) : Tensor();
}
Tensor to(const Tensor& t, Device d) { return t.defined() ? t.to(d) : Tensor(); }

// As gemm: an absolute floor that grows as sqrt of the summed length; GPU 1e-4, oneDNN 1e-5.
void set_tolerances(OpCase& c, std::int64_t length) {
  const float scale = std::sqrt(static_cast<float>(std::max<std::int64_t>(length, 1)));
  c.fp32 = {1e-4f, 1e-4f * scale};
  c.cpu = Tolerance{1e-5f, 1e-5f * scale};
  c.reduced = {{MatmulPrecision::tf32, {1e-2f, 1e-2f * scale}},
               {MatmulPrecision::bf16, {5e-2f, 5e-2f * scale}}};
}

OpCase forward_case(Dims d, bool with_bias, bool relu, std::uint32_t s, bool nan_row = false) {
  const std::string what = "(" + std::to_string(d.n) + ", " + std::to_string(d.in) + ") -> " +
                           std::to_string(d.out) + (with_bias ? " bias" : "") +
                           (relu ? " relu" : "") + (nan_row ? " NaN in row 1 of x" : "");
  OpCase c{"linear_forward", "Linear", what, [=](Device dev) -> Outputs {
             Tensor x = input({d.n, d.in}, s);
             if (nan_row) x.data<float>()[1 * d.in + 2] = kNaN;
             const Tensor w = input({d.out, d.in}, s + 1), bias = maybe(with_bias, {d.out}, s + 2);
             Tensor y = Tensor::full({d.n, d.out}, kNaN, dev);
             linear_forward(x.to(dev), w.to(dev), to(bias, dev), y, relu);
             return {{"y", y}};
           }};
  set_tolerances(c, d.in + 1);
  return c;
}

OpCase backward_case(Dims d, int variant, std::uint32_t s) {
  const bool relu = variant & 1, with_bias = variant & 2, with_copy = variant & 4,
             with_dx = !(variant & 8);
  const std::string what = "(" + std::to_string(d.n) + ", " + std::to_string(d.in) + ") -> " +
                           std::to_string(d.out) + (relu ? " relu" : "") +
                           (with_bias ? " bias" : "") + (with_copy ? " bf16 copy" : "") +
                           (with_dx ? "" : " no dx");
  OpCase c{
      "linear_backward", "Linear", what, [=](Device dev) -> Outputs {
        const Tensor dy = input({d.n, d.out}, s).to(dev), x = input({d.n, d.in}, s + 1).to(dev);
        const Tensor w = input({d.out, d.in}, s + 2);
        const Tensor y = relu ? input({d.n, d.out}, s + 3).to(dev) : Tensor();
        Tensor dw = input({d.out, d.in}, s + 4).to(dev);
        Tensor db = with_bias ? input({d.out}, s + 5).to(dev) : Tensor();
        Tensor dx = Tensor::full({d.n, d.in}, kNaN, dev);
        Tensor dpre = Tensor::empty({d.n, d.out}, DType::f32, dev);
        // The weight's bf16 copy is a oneDNN feature: the reference gets none, as in training.
        Tensor copy;
        if (with_copy && dev.is_cpu() && cpu_compute() == CpuCompute::onednn) {
          copy = Tensor::empty(w.shape(), DType::bf16);
          write_bf16_copy(w, copy);
        }
        linear_backward(dy, x, w.to(dev), y, dw, db, with_dx ? &dx : nullptr, dpre, copy);
        Outputs out{{"dweight", dw}};
        if (with_bias) out.push_back({"dbias", db});
        if (with_dx) out.push_back({"dx", dx});
        return out;
      }};
  set_tolerances(c, d.n + d.out);
  return c;
}

// Odd, empty and article sizes; y and dx start as NaN ("=": overwritten), dweight and dbias start
// random ("+="); a NaN in x stays NaN through the ReLU; sliced (unaligned) operands; the backward
// with and without ReLU, bias, dx and (on oneDNN) the weight's bf16 copy.
std::vector<OpCase> cases() {
  std::vector<OpCase> out;
  const Dims dims[] = {{1, 1, 1}, {7, 33, 5},       {64, 300, 129}, {3, 0, 4},
                       {0, 5, 3}, {256, 784, 1024}, {64, 1024, 10}};
  std::uint32_t seed = 200;
  for (const Dims& d : dims)
    for (bool with_bias : {false, true})
      for (bool relu : {false, true}) {
        out.push_back(forward_case(d, with_bias, relu, seed));
        seed += 3;
      }
  out.push_back(forward_case({16, 32, 8}, true, true, 231, true));
  out.push_back(forward_case({16, 32, 8}, false, true, 234, true));
  OpCase big = forward_case({256, 1024, 1024}, true, true, 221);
  big.large = true;
  out.push_back(std::move(big));
  // Rows [3, 10) of a (13, 33) input start 99 floats in: not 16-byte aligned.
  OpCase sliced{"linear_forward", "Linear", "rows 3..10 of x (13, 33)", [](Device d) -> Outputs {
                  const Tensor x = input({13, 33}, 211).to(d), w = input({5, 33}, 212).to(d);
                  Tensor y = Tensor::zeros({7, 5}, DType::f32, d);
                  linear_forward(x.slice(3, 10), w, input({5}, 213).to(d), y, true);
                  return {{"y", y}};
                }};
  set_tolerances(sliced, 34);
  out.push_back(std::move(sliced));

  std::uint32_t bseed = 501;
  const Dims backward_dims[] = {{1, 1, 1}, {7, 33, 5}, {64, 300, 129}, {3, 0, 4}};
  for (const Dims& d : backward_dims)
    for (int variant = 0; variant < 16; ++variant) {
      out.push_back(backward_case(d, variant, bseed));
      bseed += 6;
    }
  OpCase big_backward = backward_case({256, 1024, 1024}, 3, 590);
  big_backward.large = true;
  out.push_back(std::move(big_backward));
  return out;
}

std::vector<GradientCase> gradients() {
  return {{"linear_backward", "(5, 7) -> 4, bias, relu", [] {
             Tensor x = input({5, 7}, 260), w = input({4, 7}, 261), bias = input({4}, 262);
             const Tensor probe = input({5, 4}, 263);
             const auto forward = [&] {
               Tensor y = Tensor::empty({5, 4});
               linear_forward(x, w, bias, y, true);
               return y;
             };
             const Tensor y = forward();
             Tensor dw = Tensor::zeros({4, 7}), db = Tensor::zeros({4}), dx = Tensor::empty({5, 7});
             Tensor dpre = Tensor::empty({5, 4});
             linear_backward(probe, x, w, y, dw, db, &dx, dpre);
             const auto loss = [&] { return weighted_sum(forward(), probe); };
             ::testing::AssertionResult r =
                 testing::gradient_matches_finite_differences(loss, x, dx, "x");
             if (!r) return r;
             r = testing::gradient_matches_finite_differences(loss, w, dw, "weight");
             if (!r) return r;
             return testing::gradient_matches_finite_differences(loss, bias, db, "bias");
           }}};
}

const AddCases kCases(cases());
const AddCases kGradients(gradients());

}  // namespace
}  // namespace kiln::ops_testing
