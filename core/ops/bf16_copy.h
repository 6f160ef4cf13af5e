// The bf16 weight copies of MatmulPrecision::bf16 on the CPU (checks in core/ops/bf16_copy.cpp; the
// one kernel, CPU reference, in core/cpu/bf16.cpp).
#pragma once

#include "kiln/core/ops/bf16_copy_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// x: float32 on the CPU, out: bf16 of x's shape on the CPU -> out = x rounded to nearest even
// (NaN stays NaN): a parameter's bf16 copy (Bf16Shadow), made once; the optimizer keeps it.
void write_bf16_copy(const Tensor& x, Tensor& out);
// Whether layers keep bf16 copies of their weights on `device`: MatmulPrecision::bf16 on a CPU with
// bf16 instructions, on the oneDNN path (elsewhere products round the fp32 weight themselves).
bool keeps_bf16_copies(Device device);

namespace op {

struct WriteBf16Copy {
  static constexpr const char* kName = "write_bf16_copy";
  const Tensor& x;
  Tensor& out;
  rec::WriteBf16Copy record{};  // filled by check()
  void check();
  Device device() const { return x.device(); }
};

}  // namespace op
}  // namespace kiln
