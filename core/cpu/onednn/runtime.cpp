// The shared oneDNN state: engine and stream per thread, scratch memory, bf16 rounding, errors
// and what oneDNN says of the CPU.
#include "kiln/core/cpu/onednn/runtime.h"

#include <fmt/format.h>
#include <omp.h>

#include <array>

#include "kiln/core/cpu/bf16.h"
#include "kiln/core/cpu_compute.h"
#include "kiln/core/error.h"
#include "kiln/core/memory.h"

namespace kiln::cpu::onednn {

bool built() { return true; }

bool active() { return cpu_compute() == CpuCompute::onednn; }

std::string with_thread_count(const std::string& key) {
  return key + " threads " + std::to_string(omp_get_max_threads());
}

Context& context() {
  thread_local Context ctx;
  return ctx;
}

namespace {

// The calling thread's grow-only buffers: the primitives' scratchpad, operand()'s bf16 copies,
// staging(), bf16_operand()'s widened copies.
struct Workspace {
  Scratch scratchpad;
  std::array<Scratch, 4> bf16_operands, staging, widened;
};

Workspace& workspace() {
  thread_local Workspace w;
  return w;
}

}  // namespace

void release_workspace() {
  Workspace& w = workspace();
  w.scratchpad.release();
  for (auto* slots : {&w.bf16_operands, &w.staging, &w.widened})
    for (Scratch& s : *slots) s.release();
}

dnnl::primitive_attr scratchpad_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

void execute(const Cached& p, std::unordered_map<int, dnnl::memory> args) {
  Context& ctx = context();
  if (p.scratchpad_bytes > 0) {
    const dnnl::memory::desc md({static_cast<Index>(p.scratchpad_bytes)}, dt::u8, tag::a);
    args.emplace(DNNL_ARG_SCRATCHPAD,
                 dnnl::memory(md, ctx.engine, workspace().scratchpad.get(p.scratchpad_bytes)));
  }
  p.primitive.execute(ctx.stream, args);
  ctx.stream.wait();
}

dnnl::memory::desc matrix_desc(Index rows, Index cols, bool transposed, dt type) {
  // Stored (rows, cols) row-major, or (cols, rows) row-major read as its transpose.
  const dnnl::memory::dims strides =
      transposed ? dnnl::memory::dims{1, rows} : dnnl::memory::dims{cols, 1};
  return dnnl::memory::desc({rows, cols}, type, strides);
}

dt product_type(bool bf16) {
  return bf16 && cpu_has_bf16_instructions() && machine_has_bf16_kernels() ? dt::bf16 : dt::f32;
}

Operand operand(const float* data, Index count, bool bf16, int slot) {
  if (!bf16) return {const_cast<float*>(data), dt::f32};
  if (product_type(true) == dt::f32)
    return {const_cast<float*>(rounded_to_bf16(data, count, slot)), dt::f32};
  auto* out = static_cast<std::uint16_t*>(
      workspace()
          .bf16_operands.at(static_cast<std::size_t>(slot))
          .get(static_cast<std::size_t>(count) * sizeof(std::uint16_t)));
#pragma omp parallel for if (count > 65536) schedule(static)
  for (Index i = 0; i < count; ++i) out[i] = bf16_bits(data[i]);
  return {out, dt::bf16};
}

void* staging(std::size_t bytes, int slot) {
  return workspace().staging.at(static_cast<std::size_t>(slot)).get(bytes);
}

Operand bf16_operand(const std::uint16_t* bits, Index count, int slot) {
  if (machine_has_bf16_kernels()) return {const_cast<std::uint16_t*>(bits), dt::bf16};
  auto* out = static_cast<float*>(workspace()
                                      .widened.at(static_cast<std::size_t>(slot))
                                      .get(static_cast<std::size_t>(count) * sizeof(float)));
#pragma omp parallel for if (count > 65536) schedule(static)
  for (Index i = 0; i < count; ++i) out[i] = bf16_to_float(bits[i]);
  return {out, dt::f32};
}

[[noreturn]] void throw_onednn_error(const char* op, const std::string& shapes,
                                     const dnnl::error& e) {
  KILN_THROW("oneDNN {} {}: {} (status {}); KILN_CPU_COMPUTE=reference runs the reference path", op,
             shapes, e.what(), static_cast<int>(e.status));
}

std::string isa_name() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_mic: return "avx512_mic";
    case dnnl::cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "generic";
  }
}

bool machine_has_bf16_kernels() {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  return isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx;
}

std::string version() {
  const dnnl_version_t* v = dnnl_version();
  return fmt::format("{}.{}.{}", v->major, v->minor, v->patch);
}

}  // namespace kiln::cpu::onednn
