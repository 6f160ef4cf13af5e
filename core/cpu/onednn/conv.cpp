// Convolutions as oneDNN primitives on kiln's NCHW / OIHW buffers. oneDNN picks its own layouts
// (format "any": blocked, e.g. nChw16c, where that is faster); operands are reordered into them and
// results back, through cached reorder primitives and staging buffers. Gradients that kiln
// accumulates ("+=") are reordered back with a sum post-op.
#include <fmt/format.h>

#include "kiln/core/cpu/onednn/runtime.h"

namespace kiln::cpu::onednn {

namespace {

using dims = dnnl::memory::dims;

struct Geometry {
  dims x, w, b, y, strides, pad_l, pad_r;
};

Geometry geometry(const Window2d& g) {
  // oneDNN wants (in + pad_l + pad_r - kernel) / stride + 1 to be the output size exactly; in
  // floor mode the right padding is what the last window reaches (less than pad_l or negative).
  const Index pr_h = (g.oh - 1) * g.sh + g.kh - g.h - g.ph;
  const Index pr_w = (g.ow - 1) * g.sw + g.kw - g.w - g.pw;
  return {{g.n, g.c, g.h, g.w},
          {g.oc, g.c, g.kh, g.kw},
          {g.oc},
          {g.n, g.oc, g.oh, g.ow},
          {g.sh, g.sw},
          {g.ph, g.pw},
          {pr_h, pr_w}};
}

std::string shapes(const Window2d& g, bool bf16) {
  return fmt::format("x {}x{}x{}x{} w {}x{}x{}x{} stride {} pad {}{}", g.n, g.c, g.h, g.w, g.oc,
                     g.c, g.kh, g.kw, g.sh, g.ph, bf16 ? " bf16" : "");
}

dnnl::memory::desc any(const dims& d, dt type) { return dnnl::memory::desc(d, type, tag::any); }

// The cached reorder from `from` to `to`, accumulating into `to` when accumulate.
const Cached& reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to, bool accumulate,
                      const std::string& key) {
  return cached(key, [&] {
    dnnl::primitive_attr attr = scratchpad_attr();
    if (accumulate) {
      dnnl::post_ops ops;
      ops.append_sum(1.0f);
      attr.set_post_ops(ops);
    }
    const Context& ctx = context();
    const dnnl::reorder::primitive_desc pd(ctx.engine, from, ctx.engine, to, attr);
    return Cached{dnnl::reorder(pd), pd.scratchpad_desc().get_size()};
  });
}

// `user` (in its plain layout) as memory in the layout `want`: the same memory when they agree,
// else reordered into staging buffer `slot`.
dnnl::memory as_layout(const dnnl::memory& user, const dnnl::memory::desc& want, int slot,
                       const std::string& key) {
  if (user.get_desc() == want) return user;
  dnnl::memory out(want, context().engine, staging(want.get_size(), slot));
  execute(reorder(user.get_desc(), want, false, key), {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, out}});
  return out;
}

// The memory a primitive writes `user` through: `user` itself when the layouts agree (and no
// accumulation is asked for), else a staging buffer that finish() reorders into `user`.
struct Output {
  dnnl::memory user, target;
  bool accumulate;
  std::string key;
  void finish() const {
    if (target.get_data_handle() == user.get_data_handle()) return;
    execute(reorder(target.get_desc(), user.get_desc(), accumulate, key),
            {{DNNL_ARG_FROM, target}, {DNNL_ARG_TO, user}});
  }
};
Output output(const dnnl::memory& user, const dnnl::memory::desc& want, bool accumulate, int slot,
              std::string key) {
  if (user.get_desc() == want && !accumulate) return {user, user, false, std::move(key)};
  return {user, dnnl::memory(want, context().engine, staging(want.get_size(), slot)), accumulate,
          std::move(key)};
}

dnnl::memory user_memory(const dims& d, dt type, tag layout, const void* data) {
  return dnnl::memory(dnnl::memory::desc(d, type, layout), context().engine,
                      const_cast<void*>(data));
}

// An operand in kiln's plain layout `layout`, as memory in the primitive's layout `want`.
dnnl::memory input(const dims& d, const Operand& op, tag layout, const dnnl::memory::desc& want,
                   int slot, const std::string& key) {
  return as_layout(user_memory(d, op.type, layout, op.data), want, slot, key);
}

// dbias (oc) += the sums of dy (n, oc, plane) over n and plane, in double: the bias gradient under
// bf16, where oneDNN's fused one sums the rounded dy but the gradient has no product to round.
void add_channel_sums(const Window2d& g, const float* dy, float* dbias) {
  const Index plane = g.oh * g.ow;
  for (Index o = 0; o < g.oc; ++o) {
    double sum = 0.0;
    for (Index n = 0; n < g.n; ++n)
      for (Index q = 0; q < plane; ++q) sum += dy[(n * g.oc + o) * plane + q];
    dbias[o] += static_cast<float>(sum);
  }
}

// The forward primitive description for g, the hint every backward primitive needs.
dnnl::convolution_forward::primitive_desc forward_pd(const Geometry& s, dt in, bool bias,
                                                     const dnnl::primitive_attr& attr) {
  const dnnl::convolution_forward::desc d =
      bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                             dnnl::algorithm::convolution_direct, any(s.x, in),
                                             any(s.w, in), any(s.b, dt::f32), any(s.y, dt::f32),
                                             s.strides, s.pad_l, s.pad_r)
           : dnnl::convolution_forward::desc(
                 dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                 any(s.x, in), any(s.w, in), any(s.y, dt::f32), s.strides, s.pad_l, s.pad_r);
  return dnnl::convolution_forward::primitive_desc(d, attr, context().engine);
}

// The cached primitive with its descriptions (the layouts it chose).
template <typename Primitive> struct Built {
  Cached run;
  typename Primitive::primitive_desc pd;
};
template <typename Primitive, typename Make>
const Built<Primitive>& built(const std::string& key, Make&& make) {
  return cached_value<Built<Primitive>>(key, [&] {
    const typename Primitive::primitive_desc pd = make();
    return Built<Primitive>{Cached{Primitive(pd), pd.scratchpad_desc().get_size()}, pd};
  });
}

}  // namespace

void conv2d_forward(const rec::Conv2dForward& r, bool bf16) {
  const Window2d& g = r.g;
  const float *x = r.x, *w = r.w, *bias = r.bias;
  float* y = r.y;
  const std::string key = "conv fwd " + shapes(g, bf16) + (bias ? " bias" : "");
  guarded("convolution forward", key, [&] {
    const Geometry s = geometry(g);
    const Operand xi = operand(x, g.n * g.c * g.h * g.w, bf16, 0);
    const Operand wi = operand(w, g.oc * g.c * g.kh * g.kw, bf16, 1);
    const auto& p = built<dnnl::convolution_forward>(
        key, [&] { return forward_pd(s, xi.type, bias != nullptr, scratchpad_attr()); });
    const dnnl::memory src = input(s.x, xi, tag::nchw, p.pd.src_desc(), 2, key + " x");
    const dnnl::memory wei = input(s.w, wi, tag::oihw, p.pd.weights_desc(), 3, key + " w");
    const Output dst =
        output(user_memory(s.y, dt::f32, tag::nchw, y), p.pd.dst_desc(), false, 0, key + " y");
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst.target}};
    if (bias != nullptr) args.emplace(DNNL_ARG_BIAS, user_memory(s.b, dt::f32, tag::x, bias));
    execute(p.run, std::move(args));
    dst.finish();
  });
}

void conv2d_backward_data(const rec::Conv2dBackwardData& r, bool bf16) {
  const Window2d& g = r.g;
  const float *dy = r.dy, *w = r.w;
  float* dx = r.dx;
  const std::string key = "conv bwd data " + shapes(g, bf16);
  guarded("convolution backward data", key, [&] {
    const Geometry s = geometry(g);
    const Operand dyi = operand(dy, g.n * g.oc * g.oh * g.ow, bf16, 0);
    const Operand wi = operand(w, g.oc * g.c * g.kh * g.kw, bf16, 1);
    const auto& p = built<dnnl::convolution_backward_data>(key, [&] {
      const dnnl::convolution_backward_data::desc d(
          dnnl::algorithm::convolution_direct, any(s.x, dt::f32), any(s.w, wi.type),
          any(s.y, dyi.type), s.strides, s.pad_l, s.pad_r);
      return dnnl::convolution_backward_data::primitive_desc(
          d, scratchpad_attr(), context().engine,
          forward_pd(s, wi.type, false, dnnl::primitive_attr()));
    });
    const dnnl::memory ddst = input(s.y, dyi, tag::nchw, p.pd.diff_dst_desc(), 2, key + " dy");
    const dnnl::memory wei = input(s.w, wi, tag::oihw, p.pd.weights_desc(), 3, key + " w");
    const Output dsrc = output(user_memory(s.x, dt::f32, tag::nchw, dx), p.pd.diff_src_desc(),
                               false, 0, key + " dx");
    execute(p.run,
            {{DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DIFF_SRC, dsrc.target}});
    dsrc.finish();
  });
}

// The bias gradient comes from the same backward-weights primitive in fp32 (a serial sum of
// kiln's own cost LeNet-5 about a sixth of its step) and from the fp32 dy under bf16
// (add_channel_sums).
void conv2d_backward_filter(const rec::Conv2dBackwardFilter& r, bool bf16) {
  const Window2d& g = r.g;
  const float *x = r.x, *dy = r.dy;
  float *dw = r.dw, *dbias = r.dbias;
  const std::string key = "conv bwd weights " + shapes(g, bf16);
  guarded("convolution backward weights", key, [&] {
    const Geometry s = geometry(g);
    const Operand xi = operand(x, g.n * g.c * g.h * g.w, bf16, 0);
    const Operand dyi = operand(dy, g.n * g.oc * g.oh * g.ow, bf16, 1);
    const auto& p = built<dnnl::convolution_backward_weights>(key, [&] {
      const dnnl::convolution_backward_weights::desc d(
          dnnl::algorithm::convolution_direct, any(s.x, xi.type), any(s.w, dt::f32),
          any(s.b, dt::f32), any(s.y, dyi.type), s.strides, s.pad_l, s.pad_r);
      return dnnl::convolution_backward_weights::primitive_desc(
          d, scratchpad_attr(), context().engine,
          forward_pd(s, xi.type, true, dnnl::primitive_attr()));
    });
    const dnnl::memory src = input(s.x, xi, tag::nchw, p.pd.src_desc(), 2, key + " x");
    const dnnl::memory ddst = input(s.y, dyi, tag::nchw, p.pd.diff_dst_desc(), 3, key + " dy");
    // "+=": the weight gradient is computed apart and added by the reorder back.
    const Output dwei = output(user_memory(s.w, dt::f32, tag::oihw, dw), p.pd.diff_weights_desc(),
                               true, 0, key + " dw");
    auto* db = static_cast<float*>(staging(static_cast<std::size_t>(g.oc) * sizeof(float), 1));
    execute(p.run, {{DNNL_ARG_SRC, src},
                    {DNNL_ARG_DIFF_DST, ddst},
                    {DNNL_ARG_DIFF_WEIGHTS, dwei.target},
                    {DNNL_ARG_DIFF_BIAS, user_memory(s.b, dt::f32, tag::x, db)}});
    dwei.finish();
    if (dbias == nullptr) return;
    if (bf16) return add_channel_sums(g, dy, dbias);     // oneDNN summed the rounded dy
    for (Index o = 0; o < g.oc; ++o) dbias[o] += db[o];  // fused into oneDNN's pass (fp32)
  });
}

bool supports_conv(const Window2d& g) {
  const Geometry s = geometry(g);
  return s.pad_r[0] >= 0 && s.pad_r[1] >= 0;
}

}  // namespace kiln::cpu::onednn
