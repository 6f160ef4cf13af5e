// kiln-doctor's measurements. Each runs real work on this machine (no figure is looked up) and
// fills its part of MachineFigures; the sizes make a full check take about 30 s and a quick one
// (for tests) about a second.
#pragma once

#include <cstdint>
#include <string>

#include "apps/doctor/figures.h"

namespace kiln::doctor {

struct Sizes {
  std::int64_t triad_elements = std::int64_t{1} << 24;  // doubles per array (3 arrays: 384 MiB)
  std::int64_t gemm_n = 1024;
  double sustained_s = 12.0;  // a GEMM held this long for the thermal check
  double fma_s = 0.2;         // each of the FMA-rate repetitions
  int decode_files = 400;     // images sampled from --data
  std::size_t copy_bytes = std::size_t{256} << 20;
  static Sizes quick();
};

// Memory bandwidth (one thread and all), the GEMM rate, the FMA rate and the peak the GEMM is
// judged against (judgement.h's set_gemm_peak).
CpuFigures measure_cpu(const Sizes& sizes);
// fp32 GFLOP/s of register-only FMA loops on `threads` threads at once (AVX-512 where this CPU
// runs it, else AVX2 with FMA; -1 on a CPU with neither), best of three runs of `seconds`.
double fma_gflops(int threads, double seconds);
// A GEMM held for sizes.sustained_s, with the clocks and temperature at its start and end.
ThermalFigures measure_sustained(const Sizes& sizes);
// Decode and read rates of a sample of the data's files ("images:DIR", "csv:PATH", ...).
DataFigures measure_data(const std::string& spec, const Sizes& sizes);
// Host-to-device copies and NVML's link, clock and process facts of the first GPU, if any.
GpuFigures measure_gpu(const Sizes& sizes);

}  // namespace kiln::doctor
