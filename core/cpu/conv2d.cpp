// CPU convolution (NCHW, weight (OC, C, kH, kW)) as im2col + GEMM, as Caffe does it: each image's
// receptive fields are unrolled into a column matrix col (C·kH·kW, OH·OW), so the forward and both
// gradients are one cpu::gemm per image. That is the reference; the oneDNN path
// (core/cpu/onednn/conv.cpp) runs where it is selected.
#include <algorithm>
#include <vector>

#include "kiln/core/cpu/gemm.h"
#include "kiln/core/cpu/onednn/onednn.h"
#include "kiln/core/ops/conv2d.h"
#include "kiln/core/precision.h"

namespace kiln::cpu {

namespace {

// A per-thread scratch buffer that only grows: steady-state steps allocate nothing.
float* scratch(Index n) {
  thread_local std::vector<float> buffer;
  if (static_cast<Index>(buffer.size()) < n) buffer.resize(static_cast<std::size_t>(n));
  return buffer.data();
}

// col row (c, i, j), column (oh, ow) = x[c, oh·sh - ph + i, ow·sw - pw + j], 0 in the padding.
// Rows are ordered as the weight's (C, kH, kW) axes, so weight (OC, K) @ col is the convolution.
void im2col(const Window2d& g, const float* x, float* col) {
  const Index plane = g.oh * g.ow;
  for (Index c = 0; c < g.c; ++c)
    for (Index i = 0; i < g.kh; ++i)
      for (Index j = 0; j < g.kw; ++j) {
        float* row = col + ((c * g.kh + i) * g.kw + j) * plane;
        for (Index oh = 0; oh < g.oh; ++oh) {
          float* out = row + oh * g.ow;
          const Index ih = oh * g.sh - g.ph + i;
          if (ih < 0 || ih >= g.h) {
            std::fill(out, out + g.ow, 0.0f);
            continue;
          }
          const float* in = x + (c * g.h + ih) * g.w;
          for (Index ow = 0; ow < g.ow; ++ow) {
            const Index iw = ow * g.sw - g.pw + j;
            out[ow] = iw >= 0 && iw < g.w ? in[iw] : 0.0f;
          }
        }
      }
}

// The adjoint of im2col: every column entry is added back to the input element it was read
// from (overlapping windows add up); padding entries are dropped. dx must start at zero.
void col2im(const Window2d& g, const float* col, float* dx) {
  const Index plane = g.oh * g.ow;
  for (Index c = 0; c < g.c; ++c)
    for (Index i = 0; i < g.kh; ++i)
      for (Index j = 0; j < g.kw; ++j) {
        const float* row = col + ((c * g.kh + i) * g.kw + j) * plane;
        for (Index oh = 0; oh < g.oh; ++oh) {
          const Index ih = oh * g.sh - g.ph + i;
          if (ih < 0 || ih >= g.h) continue;
          const float* in = row + oh * g.ow;
          float* out = dx + (c * g.h + ih) * g.w;
          for (Index ow = 0; ow < g.ow; ++ow) {
            const Index iw = ow * g.sw - g.pw + j;
            if (iw >= 0 && iw < g.w) out[iw] += in[ow];
          }
        }
      }
}

// The batch is cut into at most this many chunks for the weight gradient, fewer when the
// per-chunk partial sums would pass kMaxPartialFloats: a function of the shapes alone.
constexpr Index kMaxChunks = 16;
constexpr Index kMaxPartialFloats = Index{16} << 20;  // 64 MiB

bool use_onednn(const Window2d& g) {
  return onednn::active() && g.n > 0 && onednn::supports_conv(g);
}

}  // namespace

// Images are spread over OpenMP threads (each GEMM then runs single-threaded: Eigen does not
// nest); the weight gradient sums fixed chunks of the batch in a fixed order, so its bits never
// depend on the thread count.
void conv2d_forward(const rec::Conv2dForward& r) {
  const Window2d& g = r.g;
  if (use_onednn(g)) return onednn::conv2d_forward(r, bf16_products());
  const float *x = r.x, *w = r.w, *bias = r.bias;
  float* y = r.y;
  const Index k = g.c * g.kh * g.kw, plane = g.oh * g.ow;
  const Index in_image = g.c * g.h * g.w, out_image = g.oc * plane;
#pragma omp parallel for if (g.n > 1) schedule(static)
  for (Index n = 0; n < g.n; ++n) {
    float* col = scratch(k * plane);
    im2col(g, x + n * in_image, col);
    float* out = y + n * out_image;
    gemm({false, false, g.oc, plane, k, 1.0f, w, col, 0.0f, out});  // (OC, K) @ (K, OH·OW)
    if (bias != nullptr)
      for (Index o = 0; o < g.oc; ++o)
        for (Index p = 0; p < plane; ++p) out[o * plane + p] += bias[o];
  }
}

void conv2d_backward_data(const rec::Conv2dBackwardData& r) {
  const Window2d& g = r.g;
  if (use_onednn(g)) return onednn::conv2d_backward_data(r, bf16_products());
  const float *dy = r.dy, *w = r.w;
  float* dx = r.dx;
  const Index k = g.c * g.kh * g.kw, plane = g.oh * g.ow;
  const Index in_image = g.c * g.h * g.w, out_image = g.oc * plane;
#pragma omp parallel for if (g.n > 1) schedule(static)
  for (Index n = 0; n < g.n; ++n) {
    float* col = scratch(k * plane);
    gemm({true, false, k, plane, g.oc, 1.0f, w, dy + n * out_image, 0.0f, col});  // Wᵀ @ dy
    float* out = dx + n * in_image;
    std::fill(out, out + in_image, 0.0f);  // "=": dx is overwritten
    col2im(g, col, out);
  }
}

void conv2d_backward_filter(const rec::Conv2dBackwardFilter& r) {
  const Window2d& g = r.g;
  if (g.n == 0) return;
  if (use_onednn(g)) return onednn::conv2d_backward_filter(r, bf16_products());
  const float *x = r.x, *dy = r.dy;
  float *dw = r.dw, *dbias = r.dbias;
  const Index k = g.c * g.kh * g.kw, plane = g.oh * g.ow;
  const Index in_image = g.c * g.h * g.w, out_image = g.oc * plane;
  const Index per_chunk = g.oc * k + g.oc;  // a dW partial, then a db partial
  const Index chunks =
      std::clamp<Index>(kMaxPartialFloats / per_chunk, 1, std::min(g.n, kMaxChunks));
  thread_local std::vector<float> partials;  // the calling thread's, shared by the team below
  partials.assign(static_cast<std::size_t>(chunks * per_chunk), 0.0f);
  float* const partial_base = partials.data();
#pragma omp parallel for if (chunks > 1) schedule(static)
  for (Index chunk = 0; chunk < chunks; ++chunk) {
    float* pw = partial_base + chunk * per_chunk;
    float* pb = pw + g.oc * k;
    float* col = scratch(k * plane);
    // Images [first, last) of this chunk, in order.
    const Index first = g.n * chunk / chunks, last = g.n * (chunk + 1) / chunks;
    for (Index n = first; n < last; ++n) {
      im2col(g, x + n * in_image, col);
      const float* d = dy + n * out_image;
      gemm({false, true, g.oc, k, plane, 1.0f, d, col, 1.0f, pw});  // += dy (OC, P) @ colᵀ (P, K)
      for (Index o = 0; o < g.oc; ++o) {
        double s = 0.0;
        for (Index p = 0; p < plane; ++p) s += d[o * plane + p];
        pb[o] += static_cast<float>(s);
      }
    }
  }
  // "+=": the chunks' sums are added to the gradients in chunk order.
  for (Index chunk = 0; chunk < chunks; ++chunk) {
    const float* pw = partial_base + chunk * per_chunk;
    for (Index i = 0; i < g.oc * k; ++i) dw[i] += pw[i];
    if (dbias != nullptr)
      for (Index o = 0; o < g.oc; ++o) dbias[o] += pw[g.oc * k + o];
  }
}

namespace {

const RegisterKernel<op::Conv2dForward> kForward(Backend::reference, on_record<conv2d_forward>,
                                                 "fp32 bf16", "kiln");
const RegisterKernel<op::Conv2dBackwardData> kBackwardData(Backend::reference,
                                                           on_record<conv2d_backward_data>,
                                                           "fp32 bf16", "kiln");
const RegisterKernel<op::Conv2dBackwardFilter> kBackwardFilter(Backend::reference,
                                                               on_record<conv2d_backward_filter>,
                                                               "fp32 bf16", "kiln");

}  // namespace

}  // namespace kiln::cpu
