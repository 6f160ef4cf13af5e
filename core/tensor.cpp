// Tensor construction, views and host access.
#include "kiln/core/tensor.h"

#include <cstring>

#include <new>

#include "kiln/core/checked_math.h"
#include "kiln/core/memory.h"
#include "kiln/core/ops.h"

namespace kiln {

namespace {

// Storage for a tensor of `shape` and `dtype`. Its byte count is checked (a shape within int64
// elements may pass it in bytes), and a failed allocation names the tensor and its size.
std::shared_ptr<Storage> allocate_tensor(const Shape& shape, DType dtype, Device device,
                                         HostMemory host) {
  const std::int64_t count = shape.numel();  // checked by Shape
  const auto bytes = checked_bytes(count, dtype_size(dtype));
  KILN_CHECK(
      bytes.has_value(),
      "a {} tensor of shape {} needs {} elements of {} bytes, more bytes than an int64 holds "
      "(2^63 - 1)",
      dtype_name(dtype), shape.str(), count, dtype_size(dtype));
  try {
    return Storage::allocate(static_cast<std::size_t>(*bytes), device, host);
  } catch (const OutOfMemory& e) {
    throw OutOfMemory(
        fmt::format("{} (a {} tensor of shape {})", e.text(), dtype_name(dtype), shape.str()),
        e.where());
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(
        fmt::format("out of memory on {}: could not allocate {} bytes for a {} tensor of "
                    "shape {}",
                    device.str(), *bytes, dtype_name(dtype), shape.str()),
        "tensor.cpp");
  }
}

}  // namespace

Tensor Tensor::empty(Shape shape, DType dtype, Device device) {
  auto storage = allocate_tensor(shape, dtype, device, HostMemory::pageable);
  return Tensor(std::move(storage), std::move(shape), dtype, 0);
}

Tensor Tensor::empty_pinned(Shape shape, DType dtype) {
  auto storage = allocate_tensor(shape, dtype, Device::cpu(), HostMemory::pinned);
  return Tensor(std::move(storage), std::move(shape), dtype, 0);
}

Tensor Tensor::zeros(Shape shape, DType dtype, Device device) {
  Tensor t = empty(std::move(shape), dtype, device);
  fill(t, 0.0f);
  return t;
}

Tensor Tensor::full(Shape shape, float value, Device device) {
  Tensor t = empty(std::move(shape), DType::f32, device);
  fill(t, value);
  return t;
}

namespace {
template <typename T>
Tensor from_host_values(const std::vector<T>& values, Shape shape, Device device) {
  KILN_CHECK(static_cast<std::int64_t>(values.size()) == shape.numel(),
             "from_vector: {} values do not fill shape {} ({} elements)", values.size(),
             shape.str(), shape.numel());
  Tensor host = Tensor::empty(std::move(shape), dtype_of<T>::value, Device::cpu());
  if (!values.empty()) std::memcpy(host.raw_data(), values.data(), values.size() * sizeof(T));
  return host.to(device);
}
}  // namespace

Tensor Tensor::from_vector(const std::vector<float>& values, Shape shape, Device device) {
  return from_host_values(values, std::move(shape), device);
}

Tensor Tensor::from_vector(const std::vector<std::int32_t>& values, Shape shape, Device device) {
  return from_host_values(values, std::move(shape), device);
}

void* Tensor::raw_data() const {
  KILN_CHECK(defined(), "access to the data of an undefined tensor");
  return static_cast<char*>(storage_->data()) + offset_;
}

Tensor Tensor::slice(std::int64_t begin, std::int64_t end) const {
  KILN_CHECK(defined() && rank() >= 1, "slice needs a tensor of rank >= 1, found {}", str());
  const std::int64_t rows = shape_[0];
  KILN_CHECK(0 <= begin && begin <= end && end <= rows,
             "slice [{}, {}) is out of range for the first axis of {}", begin, end, str());
  Shape shape = shape_;
  shape[0] = end - begin;
  const std::size_t row_bytes =
      static_cast<std::size_t>(shape_.product(1, rank())) * dtype_size(dtype_);
  return Tensor(storage_, std::move(shape), dtype_,
                offset_ + static_cast<std::size_t>(begin) * row_bytes);
}

Tensor Tensor::view(Shape shape) const {
  KILN_CHECK(defined(), "view of an undefined tensor");
  KILN_CHECK(shape.numel() == numel(), "cannot view {} as {}: {} elements against {}", str(),
             shape.str(), numel(), shape.numel());
  return Tensor(storage_, std::move(shape), dtype_, offset_);
}

Tensor Tensor::to(Device device) const {
  KILN_CHECK(defined(), "to({}) of an undefined tensor", device.str());
  if (device == device_) return *this;
  Tensor out = empty(shape_, dtype_, device);
  copy(*this, out);
  return out;
}

Tensor Tensor::clone() const {
  KILN_CHECK(defined(), "clone of an undefined tensor");
  Tensor out = empty(shape_, dtype_, device_);
  copy(*this, out);
  return out;
}

template <typename T> std::vector<T> Tensor::to_vector() const {
  KILN_CHECK(defined() && dtype_ == dtype_of<T>::value, "to_vector<{}> of {}",
             dtype_name(dtype_of<T>::value),
             defined() ? str() : std::string("an undefined tensor"));
  std::vector<T> values(static_cast<std::size_t>(numel()));
  if (values.empty()) return values;
  const Tensor host = to(Device::cpu());
  std::memcpy(values.data(), host.raw_data(), nbytes());
  return values;
}
template std::vector<float> Tensor::to_vector<float>() const;
template std::vector<std::int32_t> Tensor::to_vector<std::int32_t>() const;

float Tensor::item() const {
  KILN_CHECK(defined() && numel() == 1 && dtype_ == DType::f32,
             "item() needs a float32 tensor of one element, found {}",
             defined() ? str() : std::string("an undefined tensor"));
  return to_vector<float>()[0];
}

Tensor& reuse_buffer(Tensor& buffer, const Shape& shape, DType dtype, Device device) {
  if (!buffer.defined() || buffer.shape() != shape || buffer.dtype() != dtype ||
      buffer.device() != device)
    buffer = Tensor::empty(shape, dtype, device);
  return buffer;
}

std::string Tensor::str() const {
  if (!defined()) return "Tensor(undefined)";
  return fmt::format("Tensor({}, {}, {}{})", dtype_name(dtype_), shape_.str(), device_.str(),
                     is_pinned() ? ", pinned" : "");
}

}  // namespace kiln
