// The causal_attention ops' checks and public entry points.
#include "kiln/core/ops/causal_attention.h"

#include <functional>

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace {

// q: (N, T, D) heads, the shape every other operand is checked against.
void check_heads(const char* op, const Tensor& q) {
  KILN_CHECK(q.rank() == 3, "{}: q must be (N, T, D), N heads of T positions, found {}", op,
             q.shape().str());
}

// Whether two tensors' elements overlap in memory.
bool overlap(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0) return false;
  const auto* a0 = static_cast<const char*>(a.raw_data());
  const auto* b0 = static_cast<const char*>(b.raw_data());
  const auto bytes = [](const Tensor& t) { return static_cast<std::size_t>(t.numel()) * 4; };
  return std::less<>()(a0, b0 + bytes(b)) && std::less<>()(b0, a0 + bytes(a));
}

void check_no_alias(const char* op, std::initializer_list<detail::Operand> outputs,
                    std::initializer_list<detail::Operand> inputs) {
  for (const detail::Operand& out : outputs)
    for (const detail::Operand& in : inputs)
      KILN_CHECK(!overlap(*out.second, *in.second), "{}: {} must not share memory with {}", op,
                 out.first, in.first);
}

}  // namespace

namespace op {

void CausalAttentionForward::check() {
  detail::check_alike(kName, {{"q", &q}, {"k", &k}, {"v", &v}, {"y", &y}}, DType::f32);
  check_heads(kName, q);
  detail::check_operands(kName, {{"lse", &lse}}, DType::f32);
  detail::check_same_device(kName, {{"q", &q}, {"lse", &lse}});
  detail::check_shape(kName, {"lse", &lse}, Shape{q.size(0), q.size(1)});
  check_no_alias(kName, {{"y", &y}, {"lse", &lse}}, {{"q", &q}, {"k", &k}, {"v", &v}});
  record = {q.size(0),       q.size(1), q.size(2),       q.data<float>(),  k.data<float>(),
            v.data<float>(), scale,     y.data<float>(), lse.data<float>()};
}

void CausalAttentionBackward::check() {
  detail::check_alike(kName,
                      {{"q", &q},
                       {"k", &k},
                       {"v", &v},
                       {"y", &y},
                       {"dy", &dy},
                       {"dq", &dq},
                       {"dk", &dk},
                       {"dv", &dv}},
                      DType::f32);
  check_heads(kName, q);
  detail::check_operands(kName, {{"lse", &lse}}, DType::f32);
  detail::check_same_device(kName, {{"q", &q}, {"lse", &lse}});
  detail::check_shape(kName, {"lse", &lse}, Shape{q.size(0), q.size(1)});
  check_no_alias(kName, {{"dq", &dq}, {"dk", &dk}, {"dv", &dv}},
                 {{"q", &q}, {"k", &k}, {"v", &v}, {"y", &y}, {"lse", &lse}, {"dy", &dy}});
  check_no_alias(kName, {{"dq", &dq}}, {{"dk", &dk}, {"dv", &dv}});
  check_no_alias(kName, {{"dk", &dk}}, {{"dv", &dv}});
  record = {q.size(0),        q.size(1),       q.size(2),        q.data<float>(),
            k.data<float>(),  v.data<float>(), y.data<float>(),  lse.data<float>(),
            dy.data<float>(), scale,           dq.data<float>(), dk.data<float>(),
            dv.data<float>()};
}

}  // namespace op

bool cudnn_attention_takes_head_size(std::int64_t head_size) {
  return head_size > 0 && head_size <= 128 && head_size % 8 == 0;
}

void causal_attention_forward(const Tensor& q, const Tensor& k, const Tensor& v, Tensor& y,
                              Tensor& lse, float scale) {
  run(op::CausalAttentionForward{q, k, v, y, lse, scale});
}

void causal_attention_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& y,
                               const Tensor& lse, const Tensor& dy, Tensor& dq, Tensor& dk,
                               Tensor& dv, float scale) {
  run(op::CausalAttentionBackward{q, k, v, y, lse, dy, dq, dk, dv, scale});
}

}  // namespace kiln
