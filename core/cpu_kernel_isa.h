// The instruction set oneDNN's kernels run on this CPU, for kiln-doctor, which rates the
// measured GEMM against that set's peak. Apart from core/cpu_compute.h, which most of the
// library includes, so that this one query costs them nothing.
#pragma once

#include <string>

namespace kiln {

// "avx2", "avx512_core", "avx512_core_amx", ... as oneDNN reports it; "none" in a build
// without oneDNN.
std::string cpu_kernel_isa();

}  // namespace kiln
