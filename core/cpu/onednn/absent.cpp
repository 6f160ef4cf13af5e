// A build without oneDNN: the seam reports itself absent, so cpu_compute() is always reference
// and the entry points below are never called; they throw if something calls them anyway.
#include "kiln/core/cpu/onednn/onednn.h"
#include "kiln/core/error.h"

namespace kiln::cpu::onednn {

namespace {
[[noreturn]] void absent(const char* op) {
  KILN_THROW("{}: kiln was built without oneDNN (KILN_ONEDNN=OFF or libdnnl-dev missing)", op);
}
}  // namespace

bool built() { return false; }
bool active() { return false; }
void gemm(const rec::Gemm&, bool) { absent("gemm"); }
void linear_forward(const rec::LinearForward&, bool) { absent("linear_forward"); }
void linear_backward(const rec::LinearBackward&, bool) { absent("linear_backward"); }
bool supports_conv(const Window2d&) { return false; }
void conv2d_forward(const rec::Conv2dForward&, bool) { absent("conv2d_forward"); }
void conv2d_backward_data(const rec::Conv2dBackwardData&, bool) { absent("conv2d_backward_data"); }
void conv2d_backward_filter(const rec::Conv2dBackwardFilter&, bool) {
  absent("conv2d_backward_filter");
}
std::size_t matmul_scratchpad_bytes(bool, bool, Index, Index, Index, float, bool, float, bool) {
  return 0;
}
std::size_t batched_matmul_scratchpad_bytes(bool, bool, Index, Index, Index, Index, bool) {
  return 0;
}
void release_workspace() {}
std::string isa_name() { return "none"; }
bool machine_has_bf16_kernels() { return false; }
std::string version() { return "absent"; }

}  // namespace kiln::cpu::onednn
