// Cases of reduce (sum, mean, max), argmax and sum_squares: every op on every axis of odd shapes
// (the CUDA kernels' warp-per-row, block-per-row and column paths and their grid-stride loops),
// a negative axis, ties (the first maximum wins), NaN (the first NaN wins max and argmax), empty
// tensors, and sizes past the L2 cache in Release builds.
#include <cmath>
#include <limits>

#include "kiln/core/ops.h"
#include "tests/ops/cases/harness.h"
#include "tests/support/tensor_testing.h"

namespace kiln::ops_testing {
namespace {

Shape without_axis(const Shape& shape, int axis) {
  std::vector<std::int64_t> kept;
  const int a = shape.axis(axis);
  for (int i = 0; i < shape.rank(); ++i)
    if (i != a) kept.push_back(shape[i]);
  return Shape(kept);
}

const Shape kShapes[] = {
    Shape{1}, Shape{7}, Shape{1000}, Shape{4099}, Shape{7, 33}, Shape{33, 1000}, Shape{3, 4099},
    Shape{4099, 3}, Shape{33, 7, 5}, Shape{2, 1025, 3}, Shape{1, 1000, 33},
    Shape{40000, 5},     // more warp-rows than one grid covers: the row loop
                         // strides
    Shape{70000, 2, 3},  // more outer slices than grid.y allows: the column loop strides
    Shape{0, 5}};

// Values from {0, 1, 2}: ties everywhere.
Tensor ties(const Shape& shape) {
  std::vector<float> values = testing::random_values(shape.numel(), 1100, 0.0f, 3.0f);
  for (float& v : values) v = std::floor(v);
  return Tensor::from_vector(values, shape);
}

// (4, 1500) with NaN: row 0 one, row 1 two (the first wins argmax), row 3 at the very start.
Tensor with_nans() {
  std::vector<float> values = testing::random_values(4 * 1500, 1200);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  values[700] = values[1500 + 3] = values[1500 + 1499] = values[3 * 1500] = nan;
  return Tensor::from_vector(values, Shape{4, 1500});
}

OpCase reduce_case(ReduceOp f, const char* name, std::function<Tensor()> make, int axis,
                   std::string what) {
  // Both devices sum in double; max is exact.
  const Tolerance tol = f == ReduceOp::max ? kExact : Tolerance{1e-4f, 1e-6f};
  return {"reduce", "Reduce", std::string(name) + " of " + what + " axis " + std::to_string(axis),
          [=](Device d) -> Outputs {
            const Tensor x = make().to(d);
            Tensor out = Tensor::empty(without_axis(x.shape(), axis), DType::f32, d);
            reduce(f, x, axis, out);
            return {{"out", out}};
          },
          tol};
}

OpCase argmax_case(std::function<Tensor()> make, int axis, std::string what) {
  return {"argmax", "Reduce", what + " axis " + std::to_string(axis),
          [=](Device d) -> Outputs {
            const Tensor x = make().to(d);
            Tensor out = Tensor::empty(without_axis(x.shape(), axis), DType::i32, d);
            argmax(x, axis, out);
            return {{"out", out}};
          },
          kExact};
}

std::vector<OpCase> cases() {
  const std::pair<ReduceOp, const char*> ops[] = {
      {ReduceOp::sum, "sum"}, {ReduceOp::mean, "mean"}, {ReduceOp::max, "max"}};
  std::vector<OpCase> out;
  std::uint32_t seed = 800;
  for (const Shape& shape : kShapes) {
    const std::uint32_t s = seed++;
    const auto make = [=] { return input(shape, s); };
    for (int axis = 0; axis < shape.rank(); ++axis) {
      if (shape[axis] == 0) continue;  // no reduction over an empty axis: refused by check()
      for (const auto& [f, name] : ops)
        out.push_back(reduce_case(f, name, make, axis, shape.str()));
      out.push_back(argmax_case(make, axis, shape.str()));
    }
  }
  out.push_back(reduce_case(
      ReduceOp::sum, "sum",
      [] {
        return input({7, 33}, 900);
      },
      -1, "(7, 33)"));
  for (const Shape& shape : {Shape{5, 4099}, Shape{33, 1000}, Shape{7, 2000, 3}})
    for (int axis = 0; axis < shape.rank(); ++axis)
      out.push_back(argmax_case([=] { return ties(shape); }, axis, "ties " + shape.str()));
  out.push_back(reduce_case(ReduceOp::max, "max", with_nans, 1, "NaN rows (4, 1500)"));
  out.push_back(argmax_case(with_nans, 1, "NaN rows (4, 1500)"));
  OpCase big = reduce_case(
      ReduceOp::sum, "sum",
      [] {
        return input({3, 1 << 21}, 1400);
      },
      1, "(3, 2^21)");
  big.large = true;
  out.push_back(std::move(big));

  std::uint32_t sq_seed = 1300;
  for (std::int64_t n : {0, 1, 7, 33, 1000, 4099, 8192, 8193, 1000003, 10000019}) {
    const std::uint32_t s = sq_seed++;
    OpCase c{"sum_squares",
             "Reduce",
             "n=" + std::to_string(n),
             [=](Device d) -> Outputs {
               const Tensor x = input({n}, s).to(d);
               Tensor out = Tensor::full({1}, 5.0f, d);  // "=": the 5 is overwritten
               sum_squares(x, out);
               return {{"out", out}};
             },
             {1e-4f, 0.0f}};
    c.large = n > 1000003;
    out.push_back(std::move(c));
  }
  return out;
}

const AddCases kCases(cases());

}  // namespace
}  // namespace kiln::ops_testing
