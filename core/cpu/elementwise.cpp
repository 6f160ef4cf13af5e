// CPU elementwise ops over n contiguous elements: binary a (op) b, scale, axpy and fill. out may
// alias a or b: element i is read before it is written and no other element is touched. Loops
// go parallel only past kParallelMin elements; below that thread start-up costs more.
#include <algorithm>
#include <cstdint>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/ops/elementwise.h"

namespace kiln::cpu {

namespace {

void binary(const rec::Binary& o) {
  const Index n = o.n;
  const float *a = o.a, *b = o.b;
  float* out = o.out;
  // One loop per op, so the compiler vectorises each without a branch inside.
  switch (o.f) {
    case BinaryOp::add: return for_each_index(n, [=](Index i) { out[i] = a[i] + b[i]; });
    case BinaryOp::sub: return for_each_index(n, [=](Index i) { out[i] = a[i] - b[i]; });
    case BinaryOp::mul: return for_each_index(n, [=](Index i) { out[i] = a[i] * b[i]; });
    case BinaryOp::div: return for_each_index(n, [=](Index i) { out[i] = a[i] / b[i]; });
    case BinaryOp::max: return for_each_index(n, [=](Index i) { out[i] = std::max(a[i], b[i]); });
    case BinaryOp::min: return for_each_index(n, [=](Index i) { out[i] = std::min(a[i], b[i]); });
  }
}

void scale(const rec::Scale& o) {
  const float alpha = o.alpha;
  float* x = o.x;
  for_each_index(o.n, [=](Index i) { x[i] *= alpha; });
}

void axpy(const rec::Axpy& o) {
  const float alpha = o.alpha;
  const float* x = o.x;
  float* y = o.y;
  for_each_index(o.n, [=](Index i) { y[i] += alpha * x[i]; });
}

void fill(const rec::Fill& o) {
  if (o.xi != nullptr) {
    const auto value = static_cast<std::int32_t>(o.value);
    std::int32_t* x = o.xi;
    return for_each_index(o.n, [=](Index i) { x[i] = value; });
  }
  const float value = o.value;
  float* x = o.x;
  for_each_index(o.n, [=](Index i) { x[i] = value; });
}

const RegisterKernel<op::Binary> kBinary(Backend::reference, on_record<binary>, "fp32", "kiln");
const RegisterKernel<op::Scale> kScale(Backend::reference, on_record<scale>, "fp32", "kiln");
const RegisterKernel<op::Axpy> kAxpy(Backend::reference, on_record<axpy>, "fp32", "kiln");
const RegisterKernel<op::Fill> kFill(Backend::reference, on_record<fill>, "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
