// The one description of the CPU that every CPU-dependent decision and message of kiln reads:
// instruction sets, the kernel set oneDNN runs, cores, and the fp32 throughput of the
// microarchitecture. The real probe (core/cpu_probe.cpp) reads this machine once; a test, or
// KILN_CPU_DESCRIPTION=<name>, replaces it with a named description, so every branch (AVX2,
// AVX-512, AVX-512 bf16, AMX) runs on any machine.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace kiln {

// What a microarchitecture's cores do per cycle, from the table in cpu_microarchitecture.cpp:
// vector width x FMA pipes, never the instruction set alone (Zen 4 runs AVX-512 on 256-bit units).
struct Microarchitecture {
  std::string name;                    // "Zen 4", "Sapphire Rapids"; empty: not in the table
  double fp32_flops_per_cycle = -1.0;  // per core; -1: not known (e.g. SKUs differ in FMA units)
  std::string why;                     // "AVX-512 on 256-bit units: 2 FMA pipes x 8 lanes x 2"
};

struct CpuDescription {
  std::string source;      // "probe" (this machine) or the name it was made from ("zen4")
  std::string vendor;      // cpuid's "AuthenticAMD", "GenuineIntel"; empty off x86
  std::string model_name;  // "AMD EPYC 9B14"
  int family = 0;          // cpuid's display family and model (lscpu's "CPU family", "Model")
  int model = 0;
  bool avx2 = false;
  bool avx512 = false;       // AVX-512 F, BW, VL and DQ: what oneDNN calls avx512_core
  bool avx512_bf16 = false;  // AVX-512 bf16 dot products
  bool amx = false;          // AMX tiles with bf16
  // oneDNN's kernel set as it names it: "avx2", "avx512_core", "avx512_core_bf16",
  // "avx512_core_amx"; "none" in a build without oneDNN.
  std::string kernel_set;
  int logical_cpus = 1;    // CPUs this process may run on (its affinity)
  int physical_cores = 1;  // distinct cores among them (SMT siblings share FMA units)
  Microarchitecture microarchitecture;

  // Whether the kernels multiply bf16 in hardware (AVX-512 bf16 or AMX kernels).
  bool bf16_instructions() const;
  // "AMD EPYC 9B14 (family 25, model 17, Zen 4), 2 cores, avx512_core_bf16 kernels".
  std::string summary() const;
};

// The description in force: an override where one is set, else this machine's probe (read once).
const CpuDescription& cpu_description();

// This machine, read now: cpuid, the affinity mask, /sys topology and oneDNN's kernel set.
CpuDescription probe_cpu();

// The named descriptions (the microarchitectures tests need), with `cores` cores each:
// "zen3" (AVX2), "skylake-sp" (AVX-512, FMA units differ by SKU), "icelake-sp" (AVX-512, two
// FMA units), "zen4" (AVX-512 bf16 on 256-bit units), "sapphire-rapids" (AMX).
std::vector<std::string> cpu_description_names();
// Throws kiln::Error naming the known names for another.
CpuDescription named_cpu_description(const std::string& name, int cores = 2);
// "zen4" or "zen4:cores=8", as KILN_CPU_DESCRIPTION takes it; throws naming the form.
CpuDescription parse_cpu_description(const std::string& text);

// The table's entry for a vendor, family and model.
Microarchitecture microarchitecture_of(const std::string& vendor, int family, int model);

// Replaces cpu_description() for the whole process while it lives, then puts back what was
// there; for tests (one at a time, set before the threads that read it start).
class ScopedCpuDescription {
 public:
  explicit ScopedCpuDescription(CpuDescription description);
  ScopedCpuDescription(const ScopedCpuDescription&) = delete;
  ScopedCpuDescription& operator=(const ScopedCpuDescription&) = delete;
  ~ScopedCpuDescription();

 private:
  std::unique_ptr<const CpuDescription> description_;
  const CpuDescription* previous_;
};

}  // namespace kiln
