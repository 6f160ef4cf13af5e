// The switch between oneDNN and the reference CPU path, read by core/cpu/<stem>.cpp per call.
#include "kiln/core/cpu_compute.h"
#include "kiln/core/cpu_kernel_isa.h"

#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <string_view>

#include "kiln/core/cpu/gemm.h"
#include "kiln/core/cpu/onednn/onednn.h"
#include "kiln/core/cpu_description.h"
#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"

namespace kiln {

CpuCompute cpu_compute_from_environment() {
  const char* env = std::getenv("KILN_CPU_COMPUTE");
  if (env != nullptr && *env != '\0') {
    const std::string_view name(env);
    KILN_CHECK(name == "onednn" || name == "reference",
               "KILN_CPU_COMPUTE={}: expected onednn or reference (or unset it: {} is the default)",
               excerpt(name), onednn_built() ? "onednn" : "reference");
    const CpuCompute asked = parse_cpu_compute(env);
    KILN_CHECK(asked == CpuCompute::reference || onednn_built(),
               "KILN_CPU_COMPUTE=onednn, but this kiln was built without oneDNN (KILN_ONEDNN=OFF "
               "or libdnnl-dev missing); unset it or use KILN_CPU_COMPUTE=reference");
    return asked;
  }
  return onednn_built() ? CpuCompute::onednn : CpuCompute::reference;
}

namespace {

std::atomic<CpuCompute>& selected() {
  static std::atomic<CpuCompute> compute{cpu_compute_from_environment()};
  return compute;
}

}  // namespace

void set_cpu_compute(CpuCompute compute) {
  KILN_CHECK(compute == CpuCompute::reference || onednn_built(),
             "the oneDNN CPU path was asked for, but this kiln was built without oneDNN: "
             "apt-get install libdnnl-dev and rebuild (KILN_ONEDNN=AUTO or ON)");
  selected().store(compute);
}

CpuCompute cpu_compute() { return selected().load(std::memory_order_relaxed); }

bool onednn_built() { return cpu::onednn::built(); }

CpuCompute parse_cpu_compute(const std::string& name) {
  if (name == "onednn") return CpuCompute::onednn;
  if (name == "reference") return CpuCompute::reference;
  KILN_THROW("unknown CPU compute path '{}': expected onednn or reference", name);
}

const char* cpu_compute_name(CpuCompute compute) {
  return compute == CpuCompute::onednn ? "onednn" : "reference";
}

std::string cpu_compute_description() {
  const CpuDescription& cpu = cpu_description();
  const std::string described =
      cpu.source == "probe" ? "" : " (CPU described as " + cpu.source + ")";
  if (cpu_compute() == CpuCompute::onednn)
    return fmt::format("oneDNN {}, {} kernels{}", cpu::onednn::version(), cpu.kernel_set,
                       described);
  return fmt::format("{} GEMM, im2col convolutions (reference path){}", cpu::reference_gemm_name(),
                     described);
}

std::string cpu_kernel_isa() { return cpu_description().kernel_set; }  // no oneDNN: "none"

bool cpu_has_bf16_instructions() { return onednn_built() && cpu_description().bf16_instructions(); }

}  // namespace kiln
