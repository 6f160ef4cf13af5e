// Element types. float32 is the compute type, int32 carries labels and indices; bf16 and f16
// are reserved for mixed precision and rejected by ops that do not support them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kiln {

enum class DType : std::uint8_t { f32, i32, bf16, f16 };

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::i32: return 4;
    case DType::bf16: return 2;
    case DType::f16: return 2;
  }
  return 0;
}

std::string_view dtype_name(DType t);

// The DType of a C++ element type, for typed access to tensor data.
template <typename T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr DType value = DType::f32; };
template <> struct dtype_of<std::int32_t> { static constexpr DType value = DType::i32; };

}  // namespace kiln
