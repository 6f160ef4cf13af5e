// write_bf16_copy and keeps_bf16_copies: the bf16 weight copies of MatmulPrecision::bf16 on the CPU.
#include "kiln/core/cpu/bf16.h"
#include "kiln/core/cpu_compute.h"
#include "kiln/core/dispatch.h"
#include "kiln/core/ops.h"
#include "kiln/core/precision.h"

namespace kiln {

void write_bf16_copy(const Tensor& x, Tensor& out) {
  constexpr const char* op = "write_bf16_copy";
  detail::check_operands(op, {{"x", &x}}, DType::f32);
  detail::check_operands(op, {{"out", &out}}, DType::bf16);
  detail::check_same_shape(op, {{"x", &x}, {"out", &out}});
  KILN_CHECK(x.device().is_cpu() && out.device().is_cpu(),
             "{}: bf16 weight copies are a CPU feature (the GPU's bf16 products round in cuBLAS); "
             "found x on {} and out on {}",
             op, x.device().str(), out.device().str());
  cpu::write_bf16_bits(x.numel(), x.data<float>(), static_cast<std::uint16_t*>(out.raw_data()));
}

bool keeps_bf16_copies(Device device) {
  return device.is_cpu() && bf16_products() &&
         cpu_compute() == CpuCompute::onednn && cpu_has_bf16_instructions();
}

}  // namespace kiln
