// Tensor: a row-major, contiguous view (shape, dtype, byte offset) of shared Storage. Copying a
// Tensor is cheap and shares memory; slice() and view() make views without copying; data moves
// between devices only through to(), copy() and copy_async().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/core/device.h"
#include "kiln/core/dtype.h"
#include "kiln/core/error.h"
#include "kiln/core/shape.h"
#include "kiln/core/storage.h"

namespace kiln {

class Tensor {
 public:
  Tensor() = default;  // undefined: no storage

  static Tensor empty(Shape shape, DType dtype = DType::f32, Device device = Device::cpu());
  // Page-locked host memory, for batches copied asynchronously to a GPU.
  static Tensor empty_pinned(Shape shape, DType dtype = DType::f32);
  static Tensor zeros(Shape shape, DType dtype = DType::f32, Device device = Device::cpu());
  static Tensor full(Shape shape, float value, Device device = Device::cpu());
  static Tensor from_vector(const std::vector<float>& values, Shape shape,
                            Device device = Device::cpu());
  static Tensor from_vector(const std::vector<std::int32_t>& values, Shape shape,
                            Device device = Device::cpu());

  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  std::int64_t size(int axis) const { return shape_[shape_.axis(axis)]; }
  std::int64_t numel() const { return shape_.numel(); }
  std::size_t nbytes() const { return static_cast<std::size_t>(numel()) * dtype_size(dtype_); }
  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  bool is_pinned() const { return storage_ && storage_->pinned(); }
  bool shares_storage_with(const Tensor& other) const { return storage_ == other.storage_; }

  void* raw_data() const;
  // Typed pointer; throws if T does not match dtype(). On a CUDA tensor it is a device pointer.
  template <typename T> T* data() const {
    KILN_CHECK(dtype_ == dtype_of<T>::value, "tensor {} accessed as {}", str(),
               dtype_name(dtype_of<T>::value));
    return static_cast<T*>(raw_data());
  }

  // Rows [begin, end) along the first axis, sharing storage.
  Tensor slice(std::int64_t begin, std::int64_t end) const;
  // The same elements under another shape of equal numel, sharing storage.
  Tensor view(Shape shape) const;
  // A copy on `device` (synchronous); returns *this when already there.
  Tensor to(Device device) const;
  Tensor clone() const;

  // A host copy of the elements, from any device.
  template <typename T> std::vector<T> to_vector() const;
  // The single element of a one-element float tensor, read to the host.
  float item() const;
  std::string str() const;  // "Tensor(f32, (256, 784), cuda:0)"

 private:
  Tensor(std::shared_ptr<Storage> storage, Shape shape, DType dtype, std::size_t offset)
      : storage_(std::move(storage)), shape_(std::move(shape)), dtype_(dtype),
        device_(storage_->device()), offset_(offset) {}

  std::shared_ptr<Storage> storage_;
  Shape shape_;
  DType dtype_ = DType::f32;
  Device device_;
  std::size_t offset_ = 0;  // bytes from the start of storage
};

// Returns `buffer` after making it a tensor of `shape`, `dtype` on `device`; allocates only when
// one of them changed, so buffers kept across training steps are reused.
Tensor& reuse_buffer(Tensor& buffer, const Shape& shape, DType dtype, Device device);

}  // namespace kiln
