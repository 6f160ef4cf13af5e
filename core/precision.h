// The precision of matrix products on the GPU, chosen once per process (--precision): exact fp32,
// kiln's default, whose results match the CPU to 1e-4; or TF32, where cuBLAS runs fp32 GEMMs on
// the tensor cores with 10-bit mantissas (about 1e-3 relative error, several times the
// throughput on Ampere and later). The CPU always computes in fp32. Convolutions (cuDNN) stay
// fp32 in both.
#pragma once

#include <string>

// Kept free of fmt: core/cuda/gemm.cu includes it, and fmt 9 does not compile under nvcc in C++20.
namespace kiln {

enum class MatmulPrecision : unsigned char { fp32, tf32 };

void set_matmul_precision(MatmulPrecision precision);
MatmulPrecision matmul_precision();

// "fp32" or "tf32"; throws kiln::Error naming the accepted values otherwise.
MatmulPrecision parse_matmul_precision(const std::string& name);
const char* matmul_precision_name(MatmulPrecision precision);

}  // namespace kiln
