// The precision of matrix products, chosen once per process (set_matmul_precision): fp32 (the
// default, exact), tf32 (a GPU format) or bf16 (GPU and CPU). Weights, gradients, optimizer state
// and activations stay fp32 in memory in every precision; only the inputs of products are rounded.
#pragma once

#include <string>

// Kept free of fmt: core/cuda/gemm.cu includes it, and fmt 9 does not compile under nvcc in C++20.
namespace kiln {

// On the GPU:
//   fp32  kiln's default: exact fp32, results match the CPU to 1e-4;
//   tf32  cuBLAS rounds the fp32 inputs of each GEMM to TF32 (10-bit mantissa) on the tensor
//         cores and accumulates in fp32 (about 1e-3 relative error, several times the throughput
//         on Ampere and later);
//   bf16  the same with bfloat16 inputs (7-bit mantissa, about 1e-2 relative error, twice TF32's
//         tensor-core rate on Hopper). The fp32 weights are the master copy and no loss scaling
//         is needed (bf16 has fp32's exponent range); activations are not stored in bf16, so
//         memory use does not drop. GPU convolutions (cuDNN) stay fp32.
// On the CPU, bf16 rounds the inputs of matrix products and convolutions to bfloat16 and
// multiplies with fp32 accumulation, on the CPU's bf16 instructions where it has them (AVX-512
// bf16, AMX, through oneDNN; core/cpu_compute.h) and with the same numerics on fp32 kernels
// elsewhere; tf32 is a GPU format and leaves the CPU in fp32.
enum class MatmulPrecision : unsigned char { fp32, tf32, bf16 };

void set_matmul_precision(MatmulPrecision precision);
MatmulPrecision matmul_precision();
// Whether matrix products (and, on the CPU, convolutions) take bf16 inputs.
inline bool bf16_products() { return matmul_precision() == MatmulPrecision::bf16; }

// "fp32", "tf32" or "bf16"; throws kiln::Error naming the accepted values otherwise.
MatmulPrecision parse_matmul_precision(const std::string& name);
const char* matmul_precision_name(MatmulPrecision precision);

}  // namespace kiln
