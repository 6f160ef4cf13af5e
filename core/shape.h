// Tensor shapes: up to a handful of int64 extents, row-major. numel() of an empty shape is 1
// (a scalar).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace kiln {

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<std::int64_t> dims);
  explicit Shape(std::vector<std::int64_t> dims);

  int rank() const { return static_cast<int>(dims_.size()); }
  std::int64_t operator[](int axis) const { return dims_[static_cast<std::size_t>(axis)]; }
  std::int64_t& operator[](int axis) { return dims_[static_cast<std::size_t>(axis)]; }
  std::int64_t numel() const;
  const std::vector<std::int64_t>& dims() const { return dims_; }
  // Normalises a possibly negative axis (-1 = last); throws if out of range.
  int axis(int a) const;
  // Product of extents in [begin, end).
  std::int64_t product(int begin, int end) const;
  std::string str() const;  // "(256, 784)"

  friend bool operator==(const Shape&, const Shape&) = default;

 private:
  std::vector<std::int64_t> dims_;
};

}  // namespace kiln
