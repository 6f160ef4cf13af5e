// What every oneDNN call of kiln shares, for the files of this folder only: the CPU engine and a
// stream per calling thread, the per-thread cache of primitives keyed by op and shape, the
// scratch memory they run in, and the translation of oneDNN's errors into kiln::Error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>

#include <oneapi/dnnl/dnnl.hpp>

#include "kiln/core/cpu/onednn/onednn.h"
#include "kiln/core/cpu/scratch.h"

namespace kiln::cpu::onednn {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// One thread's engine and stream. oneDNN runs each primitive on the calling thread's OpenMP
// team, kiln's one CPU thread pool.
struct Context {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};
Context& context();

using cpu::Scratch;  // core/cpu/scratch.h

// A primitive ready to run: built once for its key, with the size of the scratchpad it asked for.
struct Cached {
  dnnl::primitive primitive;
  std::size_t scratchpad_bytes = 0;
};

// `key` with the calling thread's OpenMP thread count: a primitive splits its work for the count
// it was built with and runs that many threads, so one built at 2 threads must not serve 1.
std::string with_thread_count(const std::string& key);

// The calling thread's cached value for `key` (and the thread count), made by `build` on the
// first call: a Cached primitive, or anything that holds one with its descriptions.
template <typename Value, typename Build>
const Value& cached_value(const std::string& key, Build&& build) {
  thread_local std::unordered_map<std::string, Value> cache;
  const std::string full_key = with_thread_count(key);
  auto it = cache.find(full_key);
  if (it == cache.end()) it = cache.emplace(full_key, build()).first;
  return it->second;
}

// build: () -> {primitive, its primitive_desc's scratchpad size}.
template <typename Build> const Cached& cached(const std::string& key, Build&& build) {
  return cached_value<Cached>(key, std::forward<Build>(build));
}

// The attribute every kiln primitive is built with: a user-managed scratchpad, so oneDNN never
// allocates one per call.
dnnl::primitive_attr scratchpad_attr();

// Runs `p` with `args` plus the scratchpad on this thread's stream and waits for it.
void execute(const Cached& p, std::unordered_map<int, dnnl::memory> args);

// A row-major (rows, cols) matrix at `data`, or its transpose as stored (cols, rows) when
// transposed: a plain 2-D memory descriptor with strides.
dnnl::memory::desc matrix_desc(Index rows, Index cols, bool transposed, dt type);

// An operand of a matrix product or convolution as the primitive takes it: the float32 data as
// given; under bf16, rounded to bf16 into the calling thread's staging buffer `slot` (0..3), as
// bf16 where the CPU multiplies bf16 in hardware, else as float32 holding bf16 values (same
// numerics: bf16 products are exact in fp32) for the fp32 kernels.
struct Operand {
  void* data;
  dt type;
};
Operand operand(const float* data, Index count, bool bf16, int slot);
// The type operand() gives a product's inputs: bf16 where the described CPU multiplies bf16 and
// this machine's kernels do, else float32.
dt product_type(bool bf16);

// A staging buffer of the calling thread for data in another layout (slots 0..3, apart from
// operand()'s).
void* staging(std::size_t bytes, int slot);

// bf16 data kiln keeps (a weight's copy, a gradient written as bf16) as the primitive takes it:
// as bf16 where this machine's kernels take it, else widened to float32 into the calling
// thread's buffer `slot` (0..3; exact, so the product sees the same values), so that a described
// bf16 CPU runs kiln's bf16 branch on any machine.
Operand bf16_operand(const std::uint16_t* bits, Index count, int slot);

// Runs `body`, turning a dnnl::error into kiln::Error "oneDNN <op> <shapes>: <reason>".
[[noreturn]] void throw_onednn_error(const char* op, const std::string& shapes,
                                     const dnnl::error& e);
template <typename Body> void guarded(const char* op, const std::string& shapes, Body&& body) {
  try {
    body();
  } catch (const dnnl::error& e) {
    throw_onednn_error(op, shapes, e);
  }
}

}  // namespace kiln::cpu::onednn
