// The enumerations that select a variant of an op. Kept apart from ops.h so that the CUDA
// sources, which see only raw pointers, include nothing else of kiln.
#pragma once

namespace kiln {

enum class Activation : unsigned char { relu, leaky_relu, sigmoid, tanh, gelu };
enum class BinaryOp : unsigned char { add, sub, mul, div, max, min };
enum class ReduceOp : unsigned char { sum, mean, max };

}  // namespace kiln
