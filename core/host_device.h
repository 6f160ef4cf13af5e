// KILN_HOST_DEVICE marks a function that nvcc compiles for host and device and the host compiler
// for the host, so that a formula is written once for the CPU bodies and the CUDA kernels
// (core/philox.h, core/optimizer_math.h, the ops' records).
#pragma once

#if defined(__CUDACC__)
#define KILN_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define KILN_HOST_DEVICE inline
#endif
