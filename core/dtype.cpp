// DType names for messages.
#include "kiln/core/dtype.h"

namespace kiln {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "float32";
    case DType::i32: return "int32";
    case DType::bf16: return "bfloat16";
    case DType::f16: return "float16";
  }
  return "unknown";
}

}  // namespace kiln
