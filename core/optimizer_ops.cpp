// Multi-tensor optimizer ops: SGD and Adam/AdamW steps, the global sum of squares, clipping by
// the global norm and clamping. Each checks its lists (lengths, dtype, shapes, one device) and
// hyper-parameters, then hands the backend flat arrays of sizes and pointers, so the CUDA side
// can pack up to 64 tensors into one launch.
#include <cmath>
#include <limits>
#include <vector>

#include "kiln/core/cpu/kernels.h"
#include "kiln/core/cuda/kernels.h"
#include "kiln/core/dispatch.h"
#include "kiln/core/ops.h"

namespace kiln {

namespace {

// Checks that list[i] is a defined float32 tensor with ref[i]'s shape on ref[0]'s device, for
// every i, and returns the data pointers. ref is the op's first list (params or tensors).
template <typename T, typename R>
std::vector<float*> pointers(const char* op, const char* name, std::span<T* const> list,
                             const char* ref_name, std::span<R* const> ref) {
  KILN_CHECK(list.size() == ref.size(), "{}: {} holds {} tensors but {} holds {}; pass one per {}",
             op, name, list.size(), ref_name, ref.size(), ref_name);
  std::vector<float*> out(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Tensor* t = list[i];
    KILN_CHECK(t != nullptr && t->defined(), "{}: {}[{}] is an undefined tensor", op, name, i);
    KILN_CHECK(t->dtype() == DType::f32, "{}: {}[{}] must be float32, found {}", op, name, i,
               t->str());
    KILN_CHECK(t->device() == ref[0]->device(),
               "{}: {}[{}] is on {} but {}[0] is on {}; move them to one device with .to()", op,
               name, i, t->device().str(), ref_name, ref[0]->device().str());
    KILN_CHECK(t->shape() == ref[i]->shape(), "{}: {}[{}] has shape {} but {}[{}] has shape {}", op,
               name, i, t->shape().str(), ref_name, i, ref[i]->shape().str());
    out[i] = t->data<float>();
  }
  return out;
}

template <typename R> std::vector<std::int64_t> sizes_of(std::span<R* const> list) {
  std::vector<std::int64_t> sizes;
  sizes.reserve(list.size());
  for (const Tensor* t : list) sizes.push_back(t->numel());
  return sizes;
}

// A (1) float32 scalar operand on `device`.
void check_scalar(const char* op, const char* name, const Tensor& t, Device device) {
  detail::check_operands(op, {{name, &t}}, DType::f32);
  detail::check_shape(op, {name, &t}, Shape{1});
  KILN_CHECK(t.device() == device, "{}: {} is on {} but the tensors are on {}", op, name,
             t.device().str(), device.str());
}

int count_of(std::size_t n) { return static_cast<int>(n); }

// The per-step rows of an update (ops.h, StepScalarRows) as the backends take them, after
// checking them; empty when the scalars come as arguments. On the CPU the cursor is read here,
// so it is also checked to point at a row.
StepRowsOnDevice step_rows(const char* op, const StepScalarRows* per_step, std::int32_t width,
                           Device device) {
  if (per_step == nullptr) return {};
  KILN_CHECK(per_step->rows != nullptr && per_step->cursor != nullptr,
             "{}: per-step scalars need both their rows and their cursor", op);
  const Tensor& rows = *per_step->rows;
  Tensor& cursor = *per_step->cursor;
  detail::check_operands(op, {{"per-step rows", &rows}}, DType::f32);
  detail::check_operands(op, {{"per-step cursor", &cursor}}, DType::i32);
  detail::check_shape(op, {"per-step cursor", &cursor}, Shape{1});
  KILN_CHECK(rows.rank() == 2 && rows.size(1) == width && rows.size(0) >= 1 &&
                 rows.size(0) <= std::numeric_limits<std::int32_t>::max(),
             "{}: the per-step rows must be (steps, {}) with at least one row, found {}", op, width,
             rows.str());
  KILN_CHECK(rows.device() == device && cursor.device() == device,
             "{}: the per-step rows ({}) and cursor ({}) must be on the parameters' device, {}", op,
             rows.device().str(), cursor.device().str(), device.str());
  const StepRowsOnDevice out{rows.data<float>(), static_cast<std::int32_t>(rows.size(0)), width,
                             cursor.data<std::int32_t>()};
  if (device.is_cpu())
    KILN_CHECK(*out.cursor >= 0 && *out.cursor < out.count,
               "{}: the per-step rows are used up: the cursor is at row {} of {}; prepare rows "
               "for the steps to come",
               op, *out.cursor, out.count);
  return out;
}

// The bf16 copies' bits for the CPU kernels: null when none of `copies` is defined, else one
// entry per parameter (null where that one keeps no copy). Copies are a CPU feature.
std::vector<std::uint16_t*> bf16_pointers(const char* op, std::span<Tensor* const> copies,
                                          std::span<Tensor* const> params) {
  std::vector<std::uint16_t*> out;
  if (copies.empty()) return out;
  KILN_CHECK(copies.size() == params.size(), "{}: {} bf16 copies for {} parameters", op, copies.size(),
             params.size());
  bool any = false;
  for (std::size_t i = 0; i < copies.size(); ++i) {
    const Tensor* c = copies[i];
    if (c == nullptr || !c->defined()) {
      out.push_back(nullptr);
      continue;
    }
    KILN_CHECK(c->dtype() == DType::bf16 && c->shape() == params[i]->shape() && c->device().is_cpu() &&
                   params[i]->device().is_cpu(),
               "{}: bf16 copy {} must be a CPU bf16 tensor shaped like parameter {}", op, c->str(),
               params[i]->str());
    out.push_back(static_cast<std::uint16_t*>(c->raw_data()));
    any = true;
  }
  if (!any) out.clear();
  return out;
}

}  // namespace

void sgd_step(std::span<Tensor* const> params, std::span<const Tensor* const> grads,
              std::span<Tensor* const> momentum_buffers, const SgdConfig& c, bool first_step,
              const StepScalarRows* per_step, std::span<Tensor* const> bf16_copies) {
  constexpr const char* op = "sgd_step";
  KILN_CHECK(c.lr >= 0.0f && c.momentum >= 0.0f && c.weight_decay >= 0.0f,
             "{}: lr ({}), momentum ({}) and weight_decay ({}) must be non-negative", op, c.lr,
             c.momentum, c.weight_decay);
  KILN_CHECK(!c.nesterov || (c.momentum > 0.0f && c.dampening == 0.0f),
             "{}: Nesterov momentum needs momentum > 0 and dampening 0, found {} and {}", op,
             c.momentum, c.dampening);
  if (params.empty()) return;
  const auto p = pointers(op, "params", params, "params", params);
  const auto g = pointers(op, "grads", grads, "params", params);
  const bool with_momentum = c.momentum != 0.0f;
  KILN_CHECK(with_momentum || momentum_buffers.empty(),
             "{}: momentum is 0, so pass no momentum buffers (found {})", op,
             momentum_buffers.size());
  const auto buf = with_momentum
                       ? pointers(op, "momentum_buffers", momentum_buffers, "params", params)
                       : std::vector<float*>();
  const auto sizes = sizes_of(params);
  float* const* bufs = with_momentum ? buf.data() : nullptr;
  const int n = count_of(params.size());
  const Device device = params[0]->device();
  const StepRowsOnDevice rows = step_rows(op, per_step, 1, device);
  if (device.is_cpu()) {
    SgdConfig config = c;
    if (rows.rows != nullptr) config.lr = current_row(rows)[0];
    const auto copies = bf16_pointers(op, bf16_copies, params);
    cpu::sgd_step(n, sizes.data(), p.data(), g.data(), bufs, config, first_step,
                  copies.empty() ? nullptr : copies.data());
    if (rows.rows != nullptr) ++*rows.cursor;
    return;
  }
  KILN_CHECK(bf16_pointers(op, bf16_copies, params).empty(), "{}: bf16 weight copies are a CPU feature", op);
  KILN_ON_CUDA(op, cuda::sgd_step(n, sizes.data(), p.data(), g.data(), bufs, c, first_step, rows,
                                  detail::prepare_cuda(device)));
}

void adam_step(std::span<Tensor* const> params, std::span<const Tensor* const> grads,
               std::span<Tensor* const> exp_avg, std::span<Tensor* const> exp_avg_sq,
               const AdamConfig& c, std::int64_t step, const StepScalarRows* per_step,
               std::span<Tensor* const> bf16_copies) {
  constexpr const char* op = "adam_step";
  KILN_CHECK(c.lr >= 0.0f && c.eps >= 0.0f && c.weight_decay >= 0.0f,
             "{}: lr ({}), eps ({}) and weight_decay ({}) must be non-negative", op, c.lr, c.eps,
             c.weight_decay);
  KILN_CHECK(c.beta1 >= 0.0f && c.beta1 < 1.0f && c.beta2 >= 0.0f && c.beta2 < 1.0f,
             "{}: betas must lie in [0, 1), found ({}, {})", op, c.beta1, c.beta2);
  KILN_CHECK(step >= 1, "{}: step counts updates from 1, found {}", op, step);
  if (params.empty()) return;
  const auto p = pointers(op, "params", params, "params", params);
  const auto g = pointers(op, "grads", grads, "params", params);
  const auto m = pointers(op, "exp_avg", exp_avg, "params", params);
  const auto v = pointers(op, "exp_avg_sq", exp_avg_sq, "params", params);
  const auto sizes = sizes_of(params);
  const AdamScalars s = adam_scalars(c, step);
  const int n = count_of(params.size());
  const Device device = params[0]->device();
  const StepRowsOnDevice rows =
      step_rows(op, per_step, sizeof(AdamScalars) / sizeof(float), device);
  if (device.is_cpu()) {
    const AdamScalars scalars = rows.rows != nullptr ? adam_scalars_from_row(current_row(rows)) : s;
    const auto copies = bf16_pointers(op, bf16_copies, params);
    cpu::adam_step(n, sizes.data(), p.data(), g.data(), m.data(), v.data(), c, scalars,
                   copies.empty() ? nullptr : copies.data());
    if (rows.rows != nullptr) ++*rows.cursor;
    return;
  }
  KILN_CHECK(bf16_pointers(op, bf16_copies, params).empty(), "{}: bf16 weight copies are a CPU feature", op);
  KILN_ON_CUDA(op, cuda::adam_step(n, sizes.data(), p.data(), g.data(), m.data(), v.data(), c, s,
                                   rows, detail::prepare_cuda(device)));
}

void multi_sum_squares(std::span<const Tensor* const> tensors, Tensor& out) {
  constexpr const char* op = "multi_sum_squares";
  const Device device = tensors.empty() ? out.device() : tensors[0]->device();
  const auto x = pointers(op, "tensors", tensors, "tensors", tensors);
  check_scalar(op, "out", out, device);
  const auto sizes = sizes_of(tensors);
  const int n = count_of(tensors.size());
  if (device.is_cpu()) return cpu::multi_sum_squares(n, sizes.data(), x.data(), out.data<float>());
  KILN_ON_CUDA(op, cuda::multi_sum_squares(n, sizes.data(), x.data(), out.data<float>(),
                                           detail::prepare_cuda(device)));
}

void clip_by_global_norm(std::span<Tensor* const> tensors, const Tensor& norm_sq, float max_norm,
                         Tensor* norm) {
  constexpr const char* op = "clip_by_global_norm";
  KILN_CHECK(max_norm >= 0.0f, "{}: max_norm must be non-negative, found {}", op, max_norm);
  const Device device = tensors.empty() ? norm_sq.device() : tensors[0]->device();
  const auto x = pointers(op, "tensors", tensors, "tensors", tensors);
  check_scalar(op, "norm_sq", norm_sq, device);
  if (norm != nullptr) check_scalar(op, "norm", *norm, device);
  float* norm_out = norm != nullptr ? norm->data<float>() : nullptr;
  const auto sizes = sizes_of(tensors);
  const int n = count_of(tensors.size());
  if (device.is_cpu())
    return cpu::clip_by_global_norm(n, sizes.data(), x.data(), norm_sq.data<float>(), max_norm,
                                    norm_out);
  KILN_ON_CUDA(op, cuda::clip_by_global_norm(n, sizes.data(), x.data(), norm_sq.data<float>(),
                                             max_norm, norm_out, detail::prepare_cuda(device)));
}

void clamp_(std::span<Tensor* const> tensors, float lo, float hi) {
  constexpr const char* op = "clamp_";
  KILN_CHECK(lo <= hi, "{}: the range [{}, {}] is empty; lo must not exceed hi", op, lo, hi);
  if (tensors.empty()) return;
  const auto x = pointers(op, "tensors", tensors, "tensors", tensors);
  const auto sizes = sizes_of(tensors);
  const int n = count_of(tensors.size());
  if (tensors[0]->device().is_cpu()) return cpu::clamp_(n, sizes.data(), x.data(), lo, hi);
  KILN_ON_CUDA(op, cuda::clamp_(n, sizes.data(), x.data(), lo, hi,
                                detail::prepare_cuda(tensors[0]->device())));
}

void clamp_(Tensor& x, float lo, float hi) {
  Tensor* one[] = {&x};
  clamp_(std::span<Tensor* const>(one), lo, hi);
}

}  // namespace kiln
