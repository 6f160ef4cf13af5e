// The CPU backend's oneDNN entry points, called by core/cpu/<stem>.cpp when cpu_compute() is
// onednn, with the same buffers and contracts ("=" and "+=") as the reference bodies there. No
// oneDNN type appears here, so the rest of kiln never sees its API, and a move to oneDNN 3 touches
// only this folder. A oneDNN failure becomes a kiln::Error naming the op and its shapes. In a
// build without oneDNN these throw (absent.cpp) and are never selected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "kiln/core/ops/conv2d_record.h"
#include "kiln/core/ops/gemm_record.h"
#include "kiln/core/ops/linear_record.h"
#include "kiln/core/window2d.h"

namespace kiln::cpu::onednn {

using Index = std::int64_t;

// Every op here: oneDNN splits work by thread count, so results may differ in the last bits
// between counts; at one count they repeat bit for bit (what resuming from a checkpoint relies
// on).
//
// Whether this build has oneDNN; and whether it is built and cpu_compute() is onednn.
bool built();
bool active();

// out (m, n) = alpha * op(a) @ op(b) + beta * out, row-major; beta == 0 never reads out. bf16:
// the inputs are rounded to bfloat16 and multiplied with fp32 accumulation.
void gemm(const rec::Gemm& o, bool bf16);

// Linear's forward and backward, as core/cpu/linear.cpp's; w_bf16 (or null) is the weight's
// bf16 copy, used for bf16 products where the CPU has bf16 instructions.
void linear_forward(const rec::LinearForward& o, bool bf16);
void linear_backward(const rec::LinearBackward& o, bool bf16);

// The scratchpad bytes oneDNN's primitive for that product (a batch of them) asks for at the
// calling thread's thread count and these operand types: what the memory estimate counts
// (core/cpu_workspace.h); 0 without oneDNN.
std::size_t matmul_scratchpad_bytes(bool trans_a, bool trans_b, Index m, Index n, Index k,
                                    float alpha, bool bias, float beta, bool bf16);
std::size_t batched_matmul_scratchpad_bytes(bool trans_a, bool trans_b, Index batch, Index m,
                                            Index n, Index k, bool bf16);
// Primitives are built once per shape and cached per thread; their scratchpads and bf16 staging
// buffers come from kiln's CPU allocator and only grow, so a steady training step allocates
// nothing. This frees the calling thread's scratchpad and staging buffers (they grow again when
// used).
void release_workspace();

// NCHW convolution; y and dx "=", dw and dbias "+=" (dbias may be null). supports_conv: false
// for the geometries oneDNN cannot express (a floor-mode output that leaves input rows unread
// needs a negative right padding); those take the reference path.
bool supports_conv(const Window2d& g);
void conv2d_forward(const rec::Conv2dForward& o, bool bf16);
void conv2d_backward_data(const rec::Conv2dBackwardData& o, bool bf16);
void conv2d_backward_filter(const rec::Conv2dBackwardFilter& o, bool bf16);

// "avx512_core_amx", "avx2", ...: the instruction set oneDNN generates kernels for on this
// machine (its DNNL_MAX_CPU_ISA environment variable caps it, e.g. AVX2 to try an AVX2-only
// machine's path). The CPU probe reads it; everything else reads cpu_description().
std::string isa_name();
// Whether this machine's oneDNN kernels take bf16 operands in hardware, whatever
// cpu_description() says: a described bf16 CPU on a machine without them runs its bf16 operands
// widened to fp32, which holds the same values (core/cpu/onednn/runtime.h).
bool machine_has_bf16_kernels();
std::string version();

}  // namespace kiln::cpu::onednn
