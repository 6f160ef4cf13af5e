// The CPU GEMM on raw row-major buffers, which the CPU linear and convolution bodies build on
// (core/cpu/gemm.cpp; oneDNN's when cpu_compute() is onednn, else OpenBLAS's or Eigen's).
#pragma once

#include "kiln/core/cpu/backend.h"

namespace kiln::cpu {

// c (m, n) = alpha * op(a) @ op(b) + beta * c, all row-major.
void gemm(bool trans_a, bool trans_b, Index m, Index n, Index k, float alpha, const float* a,
          const float* b, float beta, float* c);
// "OpenBLAS" or "Eigen": the reference path's GEMM in this build.
const char* reference_gemm_name();

}  // namespace kiln::cpu
