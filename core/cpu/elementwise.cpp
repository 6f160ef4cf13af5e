// CPU elementwise ops over n contiguous elements: binary a (op) b, scale, axpy and fill. out may
// alias a or b: element i is read before it is written and no other element is touched. Loops
// go parallel only past kParallelMin elements; below that thread start-up costs more.
#include <algorithm>
#include <cstdint>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/ops/elementwise.h"

namespace kiln::cpu {

void binary(BinaryOp op, Index n, const float* a, const float* b, float* out) {
  // One loop per op, so the compiler vectorises each without a branch inside.
  switch (op) {
    case BinaryOp::add: return for_each_index(n, [=](Index i) { out[i] = a[i] + b[i]; });
    case BinaryOp::sub: return for_each_index(n, [=](Index i) { out[i] = a[i] - b[i]; });
    case BinaryOp::mul: return for_each_index(n, [=](Index i) { out[i] = a[i] * b[i]; });
    case BinaryOp::div: return for_each_index(n, [=](Index i) { out[i] = a[i] / b[i]; });
    case BinaryOp::max: return for_each_index(n, [=](Index i) { out[i] = std::max(a[i], b[i]); });
    case BinaryOp::min: return for_each_index(n, [=](Index i) { out[i] = std::min(a[i], b[i]); });
  }
}

void scale(Index n, float alpha, float* x) {
  for_each_index(n, [=](Index i) { x[i] *= alpha; });
}

void axpy(Index n, float alpha, const float* x, float* y) {
  for_each_index(n, [=](Index i) { y[i] += alpha * x[i]; });
}

void fill(Index n, float value, float* x) {
  for_each_index(n, [=](Index i) { x[i] = value; });
}

void fill(Index n, std::int32_t value, std::int32_t* x) {
  for_each_index(n, [=](Index i) { x[i] = value; });
}

namespace {

void binary_kernel(op::Binary& o) {
  binary(o.f, o.a.numel(), o.a.data<float>(), o.b.data<float>(), o.out.data<float>());
}
void scale_kernel(op::Scale& o) { scale(o.x.numel(), o.alpha, o.x.data<float>()); }
void axpy_kernel(op::Axpy& o) { axpy(o.x.numel(), o.alpha, o.x.data<float>(), o.y.data<float>()); }
void fill_kernel(op::Fill& o) {
  if (o.x.dtype() == DType::i32)
    return fill(o.x.numel(), static_cast<std::int32_t>(o.value), o.x.data<std::int32_t>());
  fill(o.x.numel(), o.value, o.x.data<float>());
}

const RegisterKernel<op::Binary> kBinary(Backend::reference, binary_kernel, "fp32", "kiln");
const RegisterKernel<op::Scale> kScale(Backend::reference, scale_kernel, "fp32", "kiln");
const RegisterKernel<op::Axpy> kAxpy(Backend::reference, axpy_kernel, "fp32", "kiln");
const RegisterKernel<op::Fill> kFill(Backend::reference, fill_kernel, "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
