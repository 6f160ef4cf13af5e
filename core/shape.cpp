// Shape arithmetic and printing.
#include "kiln/core/shape.h"

#include <fmt/ranges.h>

#include "kiln/core/checked_math.h"
#include "kiln/core/error.h"

namespace kiln {

Shape::Shape(std::initializer_list<std::int64_t> dims) : Shape(std::vector<std::int64_t>(dims)) {}

Shape::Shape(std::vector<std::int64_t> dims) : dims_(std::move(dims)) {
  for (std::size_t i = 0; i < dims_.size(); ++i)
    KILN_CHECK(dims_[i] >= 0, "shape extents must be non-negative: found {} at axis {} of ({})",
               dims_[i], i, fmt::join(dims_, ", "));
  (void)numel();  // a shape whose element count passes int64 is refused where it is made
}

std::int64_t Shape::numel() const { return product(0, rank()); }

// Checked, so that no size computed from a shape can wrap: every tensor, batch and layer size
// goes through here.
std::int64_t Shape::product(int begin, int end) const {
  std::int64_t n = 1;
  for (int i = begin; i < end; ++i) {
    const auto next = checked_mul(n, dims_[static_cast<std::size_t>(i)]);
    KILN_CHECK(next.has_value(),
               "shape ({}) has more elements than an int64 holds (2^63 - 1): the product passes it "
               "at axis {} (extent {})",
               fmt::join(dims_, ", "), i, dims_[static_cast<std::size_t>(i)]);
    n = *next;
  }
  return n;
}

int Shape::axis(int a) const {
  const int r = rank();
  KILN_CHECK(a >= -r && a < r, "axis {} is out of range for shape {} of rank {}", a, str(), r);
  return a < 0 ? a + r : a;
}

std::string Shape::str() const {
  if (dims_.size() == 1) return fmt::format("({},)", dims_[0]);
  return fmt::format("({})", fmt::join(dims_, ", "));
}

}  // namespace kiln
