// Operand checks that name both operands, shared by the ops' check() (core/ops/), and
// prepare_cuda, which a CUDA kernel calls for its stream (on_stream does it for a launch).
#pragma once

#include <initializer_list>
#include <utility>

#include "kiln/core/tensor.h"

typedef struct CUstream_st* cudaStream_t;

namespace kiln::detail {

using Operand = std::pair<const char*, const Tensor*>;  // (name in messages, tensor)

// Each operand is defined and of `dtype`.
void check_operands(const char* op, std::initializer_list<Operand> operands, DType dtype);
// All operands live on the same device as the first.
void check_same_device(const char* op, std::initializer_list<Operand> operands);
// All operands have the shape of the first.
void check_same_shape(const char* op, std::initializer_list<Operand> operands);
void check_shape(const char* op, Operand operand, const Shape& expected);
// check_operands, check_same_device and check_same_shape in turn: operands that go element by
// element together (an op's x, y, dy, dx).
void check_alike(const char* op, std::initializer_list<Operand> operands, DType dtype);

// Makes `device` current for this thread and returns its current stream. Defined by the CUDA
// backend (core/cuda/context.cpp), so only its kernels may call it.
cudaStream_t prepare_cuda(Device device);

}  // namespace kiln::detail

namespace kiln {
// A CUDA kernel that is a launch on the op's record, `void f(const rec::X&, cudaStream_t)`,
// registers as on_stream<f>: it runs on the current stream of the op's device.
template <auto Launch, typename Op> void on_stream(Op& op) {
  Launch(op.record, detail::prepare_cuda(op.device()));
}
}  // namespace kiln
