// The optimizer ops' checks and public entry points.
#include "kiln/core/ops/optimizer_ops.h"

#include <cmath>
#include <limits>
#include <vector>

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

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

template <typename T> T* data_or_null(std::vector<T>& v) { return v.empty() ? nullptr : v.data(); }

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
  KILN_CHECK(copies.size() == params.size(), "{}: {} bf16 copies for {} parameters", op,
             copies.size(), params.size());
  bool any = false;
  for (std::size_t i = 0; i < copies.size(); ++i) {
    const Tensor* c = copies[i];
    if (c == nullptr || !c->defined()) {
      out.push_back(nullptr);
      continue;
    }
    KILN_CHECK(c->dtype() == DType::bf16 && c->shape() == params[i]->shape() &&
                   c->device().is_cpu() && params[i]->device().is_cpu(),
               "{}: bf16 copy {} must be a CPU bf16 tensor shaped like parameter {}", op, c->str(),
               params[i]->str());
    out.push_back(static_cast<std::uint16_t*>(c->raw_data()));
    any = true;
  }
  if (!any) out.clear();
  return out;
}

}  // namespace

namespace op {

void SgdStep::check_config() const {
  const SgdConfig& c = config;
  KILN_CHECK(c.lr >= 0.0f && c.momentum >= 0.0f && c.weight_decay >= 0.0f,
             "{}: lr ({}), momentum ({}) and weight_decay ({}) must be non-negative", kName, c.lr,
             c.momentum, c.weight_decay);
  KILN_CHECK(!c.nesterov || (c.momentum > 0.0f && c.dampening == 0.0f),
             "{}: Nesterov momentum needs momentum > 0 and dampening 0, found {} and {}", kName,
             c.momentum, c.dampening);
}

void SgdStep::check() {
  check_config();
  const char* op = kName;
  lists.a = pointers(op, "params", params, "params", params);
  lists.b = pointers(op, "grads", grads, "params", params);
  const bool with_momentum = config.momentum != 0.0f;
  KILN_CHECK(with_momentum || momentum_buffers.empty(),
             "{}: momentum is 0, so pass no momentum buffers (found {})", op,
             momentum_buffers.size());
  if (with_momentum) lists.c = pointers(op, "momentum_buffers", momentum_buffers, "params", params);
  lists.sizes = sizes_of(params);
  const StepRowsOnDevice rows = step_rows(op, per_step, 1, device());
  copies = bf16_pointers(op, bf16_copies, params);
  KILN_CHECK(device().is_cpu() || copies.empty(), "{}: bf16 weight copies are a CPU feature", op);
  record = {count_of(params.size()),
            lists.sizes.data(),
            lists.a.data(),
            lists.b.data(),
            data_or_null(lists.c),
            config,
            first_step,
            rows,
            data_or_null(copies)};
}

void AdamStep::check_config() const {
  const AdamConfig& c = config;
  KILN_CHECK(c.lr >= 0.0f && c.eps >= 0.0f && c.weight_decay >= 0.0f,
             "{}: lr ({}), eps ({}) and weight_decay ({}) must be non-negative", kName, c.lr, c.eps,
             c.weight_decay);
  KILN_CHECK(c.beta1 >= 0.0f && c.beta1 < 1.0f && c.beta2 >= 0.0f && c.beta2 < 1.0f,
             "{}: betas must lie in [0, 1), found ({}, {})", kName, c.beta1, c.beta2);
  KILN_CHECK(step >= 1, "{}: step counts updates from 1, found {}", kName, step);
}

void AdamStep::check() {
  check_config();
  const char* op = kName;
  lists.a = pointers(op, "params", params, "params", params);
  lists.b = pointers(op, "grads", grads, "params", params);
  lists.c = pointers(op, "exp_avg", exp_avg, "params", params);
  lists.d = pointers(op, "exp_avg_sq", exp_avg_sq, "params", params);
  lists.sizes = sizes_of(params);
  KILN_CHECK(decayed.empty() || decayed.size() == params.size(),
             "{}: {} weight-decay flags for {} parameters; pass one per parameter, or none", op,
             decayed.size(), params.size());
  const AdamScalars scalars = adam_scalars(config, step);
  const StepRowsOnDevice rows =
      step_rows(op, per_step, sizeof(AdamScalars) / sizeof(float), device());
  copies = bf16_pointers(op, bf16_copies, params);
  KILN_CHECK(device().is_cpu() || copies.empty(), "{}: bf16 weight copies are a CPU feature", op);
  record = {count_of(params.size()),
            lists.sizes.data(),
            lists.a.data(),
            lists.b.data(),
            lists.c.data(),
            lists.d.data(),
            config,
            scalars,
            rows,
            data_or_null(copies),
            decayed.empty() ? nullptr : decayed.data()};
}

void MultiSumSquares::check() {
  lists.a = pointers(kName, "tensors", tensors, "tensors", tensors);
  check_scalar(kName, "out", out, device());
  lists.sizes = sizes_of(tensors);
  record = {count_of(tensors.size()), lists.sizes.data(), lists.a.data(), out.data<float>()};
}

void ClipByGlobalNorm::check() {
  KILN_CHECK(max_norm >= 0.0f, "{}: max_norm must be non-negative, found {}", kName, max_norm);
  lists.a = pointers(kName, "tensors", tensors, "tensors", tensors);
  check_scalar(kName, "norm_sq", norm_sq, device());
  if (norm != nullptr) check_scalar(kName, "norm", *norm, device());
  lists.sizes = sizes_of(tensors);
  record = {count_of(tensors.size()),
            lists.sizes.data(),
            lists.a.data(),
            norm_sq.data<float>(),
            max_norm,
            norm != nullptr ? norm->data<float>() : nullptr};
}

void Clamp::check_range() const {
  KILN_CHECK(lo <= hi, "{}: the range [{}, {}] is empty; lo must not exceed hi", kName, lo, hi);
}

void Clamp::check() {
  check_range();
  lists.a = pointers(kName, "tensors", tensors, "tensors", tensors);
  lists.sizes = sizes_of(tensors);
  record = {count_of(tensors.size()), lists.sizes.data(), lists.a.data(), lo, hi};
}

}  // namespace op

void sgd_step(std::span<Tensor* const> params, std::span<const Tensor* const> grads,
              std::span<Tensor* const> momentum_buffers, const SgdConfig& config, bool first_step,
              const StepScalarRows* per_step, std::span<Tensor* const> bf16_copies) {
  // The op's own fields (lists, copies, record) start empty; check() fills them.
  op::SgdStep o{params, grads, momentum_buffers, config, first_step, per_step, bf16_copies};
  if (params.empty()) return o.check_config();
  run(std::move(o));
}

void adam_step(std::span<Tensor* const> params, std::span<const Tensor* const> grads,
               std::span<Tensor* const> exp_avg, std::span<Tensor* const> exp_avg_sq,
               const AdamConfig& config, std::int64_t step, const StepScalarRows* per_step,
               std::span<Tensor* const> bf16_copies, std::span<const std::uint8_t> decayed) {
  op::AdamStep o{params, grads, exp_avg, exp_avg_sq, config, step, per_step, bf16_copies, decayed};
  if (params.empty()) return o.check_config();
  run(std::move(o));
}

void multi_sum_squares(std::span<const Tensor* const> tensors, Tensor& out) {
  run(op::MultiSumSquares{tensors, out});
}

void clip_by_global_norm(std::span<Tensor* const> tensors, const Tensor& norm_sq, float max_norm,
                         Tensor* norm) {
  run(op::ClipByGlobalNorm{tensors, norm_sq, max_norm, norm});
}

void clamp_(std::span<Tensor* const> tensors, float lo, float hi) {
  op::Clamp o{tensors, lo, hi};
  if (tensors.empty()) return o.check_range();
  run(std::move(o));
}

void clamp_(Tensor& x, float lo, float hi) {
  Tensor* one[] = {&x};
  clamp_(std::span<Tensor* const>(one), lo, hi);
}

}  // namespace kiln
