// Where a GPU Linear that is followed by a ReLU applies the ReLU: in kiln's own ReLU kernel after
// a BIAS epilogue (separate, the default: one more pass over y), or in cuBLASLt's RELU / RELU_BIAS
// epilogue as the tile is written (fused, opt-in). KILN_RELU_EPILOGUE=fused|separate sets the
// process's default without a rebuild.
#pragma once

// Kept free of fmt: core/cuda/linear.cu includes it, and fmt 9 does not compile under nvcc in
// C++20.
namespace kiln {

// The CPU's semantics are NaN stays NaN, so that a diverging layer shows in the loss; separate
// keeps it by construction, while cuBLASLt documents no NaN rule for its epilogue:
// LinearParity.NanInTheInputStaysNanThroughTheRelu (run by scripts/gpu-check.sh) reports what
// fused does.
enum class ReluEpilogue : unsigned char { fused, separate };

void set_relu_epilogue(ReluEpilogue epilogue);
// KILN_RELU_EPILOGUE's choice (read once; an unknown value throws kiln::Error) until set.
ReluEpilogue relu_epilogue();
// "fused" or "separate" (empty or null: separate); throws kiln::Error naming the two otherwise.
ReluEpilogue parse_relu_epilogue(const char* name);
const char* relu_epilogue_name(ReluEpilogue epilogue);

}  // namespace kiln
