// Which library computes the CPU's matrix products, convolutions and pooling, chosen at run time:
// oneDNN or the reference, the readable path every other one is tested against. The environment
// variable KILN_CPU_COMPUTE=reference|onednn sets the starting choice, so a whole test suite or a
// run of `train` can take either path; set_cpu_compute changes it later.
#pragma once

#include <string>

namespace kiln {

// The two paths:
// - onednn, the default when kiln was built with oneDNN (cmake/KilnOnednn.cmake): JIT kernels
//   for the CPU at hand (AVX2, AVX-512, AVX-512 bf16, AMX), Linear's bias and ReLU fused;
// - reference: OpenBLAS's (or Eigen's) GEMM, im2col convolution and kiln's own pooling loops.
enum class CpuCompute : unsigned char { reference, onednn };

// Throws naming the build option when oneDNN is asked for and kiln was built without it.
void set_cpu_compute(CpuCompute compute);
CpuCompute cpu_compute();
bool onednn_built();

// "reference" or "onednn"; parse throws naming the accepted values.
CpuCompute parse_cpu_compute(const std::string& name);
// The path KILN_CPU_COMPUTE asks for (the default when unset): the start value of cpu_compute().
// Throws kiln::Error naming the variable for another value, or for onednn in a build without it.
CpuCompute cpu_compute_from_environment();
const char* cpu_compute_name(CpuCompute compute);

// One line for a run's header: "oneDNN 2.6.3, avx512_core_amx kernels" or
// "OpenBLAS GEMM (OpenMP), im2col convolutions".
std::string cpu_compute_description();

// Whether this CPU multiplies bf16 in hardware (AVX-512 bf16 or AMX kernels), as
// cpu_description() says; false without oneDNN. Where false, MatmulPrecision::bf16 on the CPU
// rounds like bf16 but is not faster.
bool cpu_has_bf16_instructions();

}  // namespace kiln
