// The op table: each op (core/ops/<stem>.h) is a struct of its operands and attributes with a
// check() that fills its record (core/ops/<stem>_record.h); backends register a kernel for it
// from their own files (core/cpu/<stem>.cpp, the oneDNN folder, core/cuda/<stem>.cpp), and run()
// checks the operands and picks the kernel by the operands' device and, on the CPU,
// cpu_compute(). A build without CUDA registers no CUDA kernel.
#pragma once

#include <string>
#include <vector>

#include "kiln/core/cpu_compute.h"
#include "kiln/core/device.h"

namespace kiln {

// Reference: kiln's readable CPU code; onednn: the oneDNN CPU path; cuda: CUDA kernels, cuBLAS,
// cuDNN, or a composite of other ops on the GPU.
enum class Backend : unsigned char { reference, onednn, cuda };
inline constexpr int kBackendCount = 3;
const char* backend_name(Backend backend);

// One row of the table, for kiln-ops and the parity harness: `precisions` lists the matrix
// product precisions the kernel computes in ("fp32", or "fp32 tf32 bf16": it follows
// matmul_precision()); `library` says what it runs on ("kiln", "oneDNN", "cuBLAS", "cuDNN", or
// "composite" of other ops).
struct KernelInfo {
  std::string op;
  Backend backend;
  std::string precisions;
  std::string library;
};
// Every registered kernel, sorted by op then backend.
std::vector<KernelInfo> registered_kernels();
// The registered ops' names, sorted.
std::vector<std::string> registered_ops();

namespace detail {
void record_kernel(KernelInfo info);
[[noreturn]] void throw_no_kernel(const char* op, Device device);
}  // namespace detail

// The kernels of Op, one slot per backend; `supports` (or null: always) says whether a kernel
// takes these operands (oneDNN cannot express every convolution), else the reference runs.
template <typename Op> struct OpKernels {
  using Kernel = void (*)(Op&);
  using Supports = bool (*)(const Op&);
  static inline Kernel kernel[kBackendCount] = {};
  static inline Supports supports[kBackendCount] = {};
};

// A kernel that is a body on the op's record (check() fills `op.record`): a CPU body
// `void f(const rec::X&)` registers as on_record<f>, a CUDA launch as on_stream<f>
// (core/operand_checks.h).
template <auto Body, typename Op> void on_record(Op& op) { Body(op.record); }

// A static object of this type in a backend's file registers its kernel at load time.
template <typename Op> struct RegisterKernel {
  RegisterKernel(Backend backend, typename OpKernels<Op>::Kernel kernel, const char* precisions,
                 const char* library, typename OpKernels<Op>::Supports supports = nullptr) {
    OpKernels<Op>::kernel[static_cast<int>(backend)] = kernel;
    OpKernels<Op>::supports[static_cast<int>(backend)] = supports;
    detail::record_kernel({Op::kName, backend, precisions, library});
  }
};

// Checks op's operands, then runs the kernel for their device: on a CPU the oneDNN kernel when
// cpu_compute() is onednn and it takes the operands, else the reference; on a GPU the CUDA one.
template <typename Op> void run(Op&& op) {
  using Kernels = OpKernels<std::remove_cvref_t<Op>>;
  op.check();
  const Device device = op.device();
  int slot = static_cast<int>(Backend::cuda);
  if (device.is_cpu()) {
    constexpr int kOnednn = static_cast<int>(Backend::onednn);
    const bool onednn = Kernels::kernel[kOnednn] != nullptr &&
                        cpu_compute() == CpuCompute::onednn &&
                        (Kernels::supports[kOnednn] == nullptr || Kernels::supports[kOnednn](op));
    slot = static_cast<int>(onednn ? Backend::onednn : Backend::reference);
  }
  const auto kernel = Kernels::kernel[slot];
  if (kernel == nullptr) detail::throw_no_kernel(std::remove_cvref_t<Op>::kName, device);
  kernel(op);
}

}  // namespace kiln
