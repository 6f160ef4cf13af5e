// write_bf16_copy's checks and entry point, and keeps_bf16_copies.
#include "kiln/core/ops/bf16_copy.h"

#include "kiln/core/cpu_compute.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"
#include "kiln/core/precision.h"

namespace kiln {

void op::WriteBf16Copy::check() {
  detail::check_operands(kName, {{"x", &x}}, DType::f32);
  detail::check_operands(kName, {{"out", &out}}, DType::bf16);
  detail::check_same_shape(kName, {{"x", &x}, {"out", &out}});
  KILN_CHECK(x.device().is_cpu() && out.device().is_cpu(),
             "{}: bf16 weight copies are a CPU feature (the GPU's bf16 products round in cuBLAS); "
             "found x on {} and out on {}",
             kName, x.device().str(), out.device().str());
  record = {x.numel(), x.data<float>(), static_cast<std::uint16_t*>(out.raw_data())};
}

void write_bf16_copy(const Tensor& x, Tensor& out) { run(op::WriteBf16Copy{x, out}); }

bool keeps_bf16_copies(Device device) {
  return device.is_cpu() && bf16_products() && cpu_compute() == CpuCompute::onednn &&
         cpu_has_bf16_instructions();
}

}  // namespace kiln
