// The permute op's checks and public entry points.
#include "kiln/core/ops/permute.h"

#include <array>

#include <fmt/ranges.h>

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace {

void check_permutation(const char* op, const std::vector<int>& perm, int rank) {
  std::vector<bool> seen(static_cast<std::size_t>(rank), false);
  bool ok = static_cast<int>(perm.size()) == rank;
  for (int a : perm) {
    ok = ok && a >= 0 && a < rank && !seen[static_cast<std::size_t>(a)];
    if (ok) seen[static_cast<std::size_t>(a)] = true;
  }
  KILN_CHECK(ok, "{}: perm must order the {} axes 0 .. {}, each once, found [{}]", op, rank,
             rank - 1, fmt::join(perm, ", "));
}

}  // namespace

namespace op {

void Permute::check() {
  detail::check_operands(kName, {{"x", &x}, {"y", &y}}, DType::f32);
  detail::check_same_device(kName, {{"x", &x}, {"y", &y}});
  const int rank = x.rank();
  KILN_CHECK(rank >= 1 && rank <= kMaxPermuteRank, "{}: x must have 1 to {} axes, found {}", kName,
             kMaxPermuteRank, x.shape().str());
  check_permutation(kName, perm, rank);
  detail::check_shape(kName, {"y", &y}, permuted_shape(x.shape(), perm));
  KILN_CHECK(x.numel() == 0 || x.raw_data() != y.raw_data(), "{}: y must not alias x", kName);
  std::array<std::int64_t, kMaxPermuteRank> x_stride{};
  std::int64_t s = 1;
  for (int a = rank - 1; a >= 0; --a) {
    x_stride[static_cast<std::size_t>(a)] = s;
    s *= x.size(a);
  }
  record = {rank, y.numel(), {}, {}, x.data<float>(), y.data<float>()};
  for (int a = 0; a < rank; ++a) {
    record.size[a] = y.size(a);
    record.stride[a] = x_stride[static_cast<std::size_t>(perm[static_cast<std::size_t>(a)])];
  }
}

}  // namespace op

Shape permuted_shape(const Shape& shape, const std::vector<int>& perm) {
  check_permutation("permute", perm, shape.rank());
  std::vector<std::int64_t> dims;
  for (int a : perm) dims.push_back(shape[a]);
  return Shape(std::move(dims));
}

std::vector<int> inverse_permutation(const std::vector<int>& perm) {
  std::vector<int> inverse(perm.size());
  for (std::size_t a = 0; a < perm.size(); ++a)
    inverse.at(static_cast<std::size_t>(perm[a])) = static_cast<int>(a);
  return inverse;
}

void permute(const Tensor& x, const std::vector<int>& perm, Tensor& y) {
  run(op::Permute{x, perm, y});
}

}  // namespace kiln
