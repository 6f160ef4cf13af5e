// The enumerations that select a variant of an op. Kept apart from ops.h so that the CUDA
// sources, which see only raw pointers, include nothing else of kiln.
#pragma once

namespace kiln {

// gelu: the exact erf form (PyTorch's default); gelu_tanh: its tanh approximation (GPT-2's,
// PyTorch's approximate='tanh').
enum class Activation : unsigned char { relu, leaky_relu, sigmoid, tanh, gelu, gelu_tanh };
enum class BinaryOp : unsigned char { add, sub, mul, div, max, min };
enum class ReduceOp : unsigned char { sum, mean, max };

}  // namespace kiln
