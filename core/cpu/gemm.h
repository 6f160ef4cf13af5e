// The CPU GEMM on gemm's record (raw row-major buffers), which the CPU linear and convolution
// bodies build on (core/cpu/gemm.cpp; oneDNN's when cpu_compute() is onednn, else OpenBLAS's or
// Eigen's).
#pragma once

#include "kiln/core/cpu/backend.h"
#include "kiln/core/ops/gemm_record.h"

namespace kiln::cpu {

// out (m, n) = alpha * op(a) @ op(b) + beta * out, all row-major.
void gemm(const rec::Gemm& o);
// "OpenBLAS" or "Eigen": the reference path's GEMM in this build.
const char* reference_gemm_name();

}  // namespace kiln::cpu
