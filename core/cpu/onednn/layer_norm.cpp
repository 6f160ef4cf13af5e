// The fast CPU layer_norm: oneDNN's layer normalization primitives on kiln's (rows, C) buffers,
// built once per shape and cached per thread. oneDNN keeps the variance where kiln's op keeps
// 1 / sqrt(var + eps): the forward converts it (in double, as the reference), the backward
// converts back; its per-feature gradients are "=", so they land in staging and are added.
// Empty batches take the reference kernel.
#include <fmt/format.h>

#include <cmath>

#include "kiln/core/cpu/onednn/runtime.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/layer_norm.h"

namespace kiln::cpu::onednn {
namespace {

using flags = dnnl::normalization_flags;
const flags kScaleShift = flags::use_scale | flags::use_shift;

dnnl::memory::desc data_desc(Index rows, Index cols) { return {{rows, cols}, dt::f32, tag::ab}; }
dnnl::memory::desc vector_desc(Index n) { return {{n}, dt::f32, tag::a}; }
dnnl::memory at(const dnnl::memory::desc& d, const float* data) {
  return dnnl::memory(d, context().engine, const_cast<float*>(data));
}

struct Forward {
  dnnl::layer_normalization_forward::primitive_desc pd;
  Cached cached;
};
const Forward& forward_primitive(Index rows, Index cols, float eps) {
  return cached_value<Forward>(fmt::format("layer_norm fwd {} {} {}", rows, cols, eps), [&] {
    const dnnl::layer_normalization_forward::desc d(dnnl::prop_kind::forward_training,
                                                    data_desc(rows, cols), vector_desc(rows), eps,
                                                    kScaleShift);
    const dnnl::layer_normalization_forward::primitive_desc pd(d, scratchpad_attr(),
                                                               context().engine);
    return Forward{pd, {dnnl::layer_normalization_forward(pd), pd.scratchpad_desc().get_size()}};
  });
}

const Cached& backward_primitive(Index rows, Index cols, float eps) {
  return cached(fmt::format("layer_norm bwd {} {} {}", rows, cols, eps), [&] {
    const dnnl::layer_normalization_backward::desc d(dnnl::prop_kind::backward,
                                                     data_desc(rows, cols), data_desc(rows, cols),
                                                     vector_desc(rows), eps, kScaleShift);
    const dnnl::layer_normalization_backward::primitive_desc pd(
        d, scratchpad_attr(), context().engine, forward_primitive(rows, cols, eps).pd);
    return Cached{dnnl::layer_normalization_backward(pd), pd.scratchpad_desc().get_size()};
  });
}

// The backward op has no eps operand: it hands oneDNN var = 1 / invstd² - eps for a fixed eps, and
// oneDNN's 1 / sqrt(var + eps) gives invstd back whatever eps is.
constexpr float kBackwardEps = 1e-5f;

bool supports_forward(const op::LayerNormForward& o) { return o.record.rows > 0; }
bool supports_backward(const op::LayerNormBackward& o) { return o.record.rows > 0; }

void forward(const rec::LayerNormForward& o) {
  guarded("layer_norm_forward", fmt::format("x {}x{}", o.rows, o.cols), [&] {
    const Forward& f = forward_primitive(o.rows, o.cols, o.eps);
    auto* variance = static_cast<float*>(staging(static_cast<std::size_t>(o.rows) * 4, 0));
    execute(f.cached, {{DNNL_ARG_SRC, at(data_desc(o.rows, o.cols), o.x)},
                       {DNNL_ARG_DST, at(data_desc(o.rows, o.cols), o.y)},
                       {DNNL_ARG_MEAN, at(vector_desc(o.rows), o.save_mean)},
                       {DNNL_ARG_VARIANCE, at(vector_desc(o.rows), variance)},
                       {DNNL_ARG_SCALE, at(vector_desc(o.cols), o.gamma)},
                       {DNNL_ARG_SHIFT, at(vector_desc(o.cols), o.beta)}});
    float* invstd = o.save_invstd;
    for (Index r = 0; r < o.rows; ++r)
      invstd[r] = static_cast<float>(1.0 / std::sqrt(static_cast<double>(variance[r]) + o.eps));
  });
}

void backward(const rec::LayerNormBackward& o) {
  guarded("layer_norm_backward", fmt::format("x {}x{}", o.rows, o.cols), [&] {
    auto* variance = static_cast<float*>(staging(static_cast<std::size_t>(o.rows) * 4, 0));
    const float* invstd = o.save_invstd;
    for (Index r = 0; r < o.rows; ++r)
      variance[r] =
          static_cast<float>(1.0 / (static_cast<double>(invstd[r]) * invstd[r]) - kBackwardEps);
    auto* dgamma = static_cast<float*>(staging(static_cast<std::size_t>(o.cols) * 4, 1));
    auto* dbeta = static_cast<float*>(staging(static_cast<std::size_t>(o.cols) * 4, 2));
    const auto* unused_shift =
        static_cast<float*>(staging(static_cast<std::size_t>(o.cols) * 4, 3));
    execute(backward_primitive(o.rows, o.cols, kBackwardEps),
            {{DNNL_ARG_SRC, at(data_desc(o.rows, o.cols), o.x)},
             {DNNL_ARG_DIFF_DST, at(data_desc(o.rows, o.cols), o.dy)},
             {DNNL_ARG_MEAN, at(vector_desc(o.rows), o.save_mean)},
             {DNNL_ARG_VARIANCE, at(vector_desc(o.rows), variance)},
             {DNNL_ARG_SCALE, at(vector_desc(o.cols), o.gamma)},
             // oneDNN asks for the shift too, though no gradient depends on it (the op has none).
             {DNNL_ARG_SHIFT, at(vector_desc(o.cols), unused_shift)},
             {DNNL_ARG_DIFF_SRC, at(data_desc(o.rows, o.cols), o.dx)},
             {DNNL_ARG_DIFF_SCALE, at(vector_desc(o.cols), dgamma)},
             {DNNL_ARG_DIFF_SHIFT, at(vector_desc(o.cols), dbeta)}});
    float* dg = o.dgamma;
    float* db = o.dbeta;
    for (Index c = 0; c < o.cols; ++c) {
      dg[c] += dgamma[c];
      db[c] += dbeta[c];
    }
  });
}

const RegisterKernel<op::LayerNormForward> kForward(Backend::onednn, on_record<forward>, "fp32",
                                                    "oneDNN", supports_forward);
const RegisterKernel<op::LayerNormBackward> kBackward(Backend::onednn, on_record<backward>, "fp32",
                                                      "oneDNN", supports_backward);

}  // namespace
}  // namespace kiln::cpu::onednn
