// Size arithmetic on numbers from files and from callers. A header or an API call may claim any
// extents; their product (and its size in bytes) is computed here without wrapping, so a hostile
// header or a huge size ends in a clear error instead of a small wrapped size that slips past
// the truncation checks (Shape::numel, Tensor::empty and the layers' sizes all come here).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace kiln {

// a * b, or nothing when either is negative or the product passes int64.
inline std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

// The product of `extents` (1 for none), or nothing when an extent is negative or it overflows.
inline std::optional<std::int64_t> checked_product(std::span<const std::int64_t> extents) {
  std::int64_t product = 1;
  for (std::int64_t e : extents) {
    const auto next = checked_mul(product, e);
    if (!next) return std::nullopt;
    product = *next;
  }
  return product;
}

// The bytes of `count` elements of `element_size` bytes each, or nothing past int64.
inline std::optional<std::int64_t> checked_bytes(std::int64_t count, std::size_t element_size) {
  return checked_mul(count, static_cast<std::int64_t>(element_size));
}

}  // namespace kiln
