// CPU max and average pooling (NCHW), one (n, c) plane per OpenMP iteration; windows are clipped
// to the input. oneDNN's pooling is not used: its max pooling lets a NaN lose to any number (a
// diverging layer would be hidden), and on kiln's plain NCHW layout it runs its simple,
// unvectorised implementation.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/ops/pool2d.h"

namespace kiln::cpu {

namespace {

// The larger wins, and the first NaN wins over any number.
bool beats(float v, float best) { return v > best || (std::isnan(v) && !std::isnan(best)); }

// The input rows [h0, h1) and columns [w0, w1) under output element (oh, ow).
struct Span {
  Index h0, h1, w0, w1;
};
Span window(const Window2d& g, Index oh, Index ow) {
  const Index hs = oh * g.sh - g.ph, ws = ow * g.sw - g.pw;
  return {std::max<Index>(hs, 0), std::min(hs + g.kh, g.h), std::max<Index>(ws, 0),
          std::min(ws + g.kw, g.w)};
}

// 2x2 windows at stride 2 without padding (LeNet's and most CNNs' pooling): the same rule as the
// general loop, window by window in the order (0,0), (0,1), (1,0), (1,1). Its rows are short (14
// or 7 windows in a CNN on 28x28 images), so a plane is walked as one flat loop over its windows,
// each reading its corner from a table made once per call; written as selects, that loop
// vectorises (gathers, 16 windows per AVX-512 step), several times the speed of a branchy loop.
void max_pool2x2(const Window2d& g, const float* x, float* y, std::int32_t* argmax) {
  const Index planes = g.n * g.c, in_plane = g.h * g.w, out_plane = g.oh * g.ow;
  const auto width = static_cast<std::int32_t>(g.w);
  std::vector<std::int32_t> corner(static_cast<std::size_t>(out_plane));
  for (Index oh = 0; oh < g.oh; ++oh)
    for (Index ow = 0; ow < g.ow; ++ow)
      corner[static_cast<std::size_t>(oh * g.ow + ow)] =
          static_cast<std::int32_t>(2 * oh * g.w + 2 * ow);
  const std::int32_t* __restrict corners = corner.data();
  const auto windows = static_cast<std::int32_t>(out_plane);
#pragma omp parallel for if (planes * out_plane > 4096) schedule(static)
  for (Index p = 0; p < planes; ++p) {
    const float* __restrict in = x + p * in_plane;
    float* __restrict out = y + p * out_plane;
    std::int32_t* __restrict arg = argmax + p * out_plane;
#pragma omp simd
    for (std::int32_t k = 0; k < windows; ++k) {
      const std::int32_t c = corners[k];
      float v = in[c];
      std::int32_t best = c;
      // beats(candidate, v) without branches: larger, or the first NaN over a number.
      const float b = in[c + 1];
      bool wins = b > v || (b != b && v == v);
      v = wins ? b : v;
      best = wins ? c + 1 : best;
      const float d = in[c + width];
      wins = d > v || (d != d && v == v);
      v = wins ? d : v;
      best = wins ? c + width : best;
      const float e = in[c + width + 1];
      wins = e > v || (e != e && v == v);
      v = wins ? e : v;
      best = wins ? c + width + 1 : best;
      out[k] = v;
      arg[k] = best;
    }
  }
}

// Max pooling never picks padding (PyTorch's implicit -inf) and records the flat index of each
// window's first maximum (a NaN beats any number, as in core/cpu/reduce.cpp); its backward routes
// each gradient there, and overlapping windows add up in a fixed order.
void max_forward(const rec::MaxPool2dForward& r) {
  const Window2d& g = r.g;
  const float* x = r.x;
  float* y = r.y;
  std::int32_t* argmax = r.argmax;
  if (g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.ph == 0 && g.pw == 0)
    return max_pool2x2(g, x, y, argmax);
  const Index planes = g.n * g.c, in_plane = g.h * g.w, out_plane = g.oh * g.ow;
#pragma omp parallel for if (planes * out_plane > 4096) schedule(static)
  for (Index p = 0; p < planes; ++p) {
    const float* in = x + p * in_plane;
    for (Index oh = 0; oh < g.oh; ++oh)
      for (Index ow = 0; ow < g.ow; ++ow) {
        // Padding is at most half the kernel (checked by the op's check()): never an empty window.
        const Span s = window(g, oh, ow);
        Index best = s.h0 * g.w + s.w0;
        for (Index ih = s.h0; ih < s.h1; ++ih)
          for (Index iw = s.w0; iw < s.w1; ++iw)
            if (beats(in[ih * g.w + iw], in[best])) best = ih * g.w + iw;
        const Index o = p * out_plane + oh * g.ow + ow;
        y[o] = in[best];
        argmax[o] = static_cast<std::int32_t>(best);
      }
  }
}

void max_backward(const rec::MaxPool2dBackward& r) {
  const Window2d& g = r.g;
  const std::int32_t* argmax = r.argmax;
  const float* dy = r.dy;
  float* dx = r.dx;
  const Index planes = g.n * g.c, in_plane = g.h * g.w, out_plane = g.oh * g.ow;
#pragma omp parallel for if (planes * in_plane > 4096) schedule(static)
  for (Index p = 0; p < planes; ++p) {
    float* out = dx + p * in_plane;
    std::fill(out, out + in_plane, 0.0f);  // "=": dx is overwritten
    for (Index o = 0; o < out_plane; ++o) out[argmax[p * out_plane + o]] += dy[p * out_plane + o];
  }
}

// Average pooling divides by the full kH·kW (count_include_pad).
void avg_forward(const rec::AvgPool2dForward& r) {
  const Window2d& g = r.g;
  const float* x = r.x;
  float* y = r.y;
  const Index planes = g.n * g.c, in_plane = g.h * g.w, out_plane = g.oh * g.ow;
  const float inv_area = 1.0f / static_cast<float>(g.kh * g.kw);
#pragma omp parallel for if (planes * out_plane > 4096) schedule(static)
  for (Index p = 0; p < planes; ++p) {
    const float* in = x + p * in_plane;
    for (Index oh = 0; oh < g.oh; ++oh)
      for (Index ow = 0; ow < g.ow; ++ow) {
        const Span s = window(g, oh, ow);
        float sum = 0.0f;
        for (Index ih = s.h0; ih < s.h1; ++ih)
          for (Index iw = s.w0; iw < s.w1; ++iw) sum += in[ih * g.w + iw];
        y[p * out_plane + oh * g.ow + ow] = sum * inv_area;
      }
  }
}

void avg_backward(const rec::AvgPool2dBackward& r) {
  const Window2d& g = r.g;
  const float* dy = r.dy;
  float* dx = r.dx;
  const Index planes = g.n * g.c, in_plane = g.h * g.w, out_plane = g.oh * g.ow;
  const float inv_area = 1.0f / static_cast<float>(g.kh * g.kw);
#pragma omp parallel for if (planes * in_plane > 4096) schedule(static)
  for (Index p = 0; p < planes; ++p) {
    float* out = dx + p * in_plane;
    std::fill(out, out + in_plane, 0.0f);
    for (Index oh = 0; oh < g.oh; ++oh)
      for (Index ow = 0; ow < g.ow; ++ow) {
        const Span s = window(g, oh, ow);
        const float share = dy[p * out_plane + oh * g.ow + ow] * inv_area;
        for (Index ih = s.h0; ih < s.h1; ++ih)
          for (Index iw = s.w0; iw < s.w1; ++iw) out[ih * g.w + iw] += share;
      }
  }
}

const RegisterKernel<op::MaxPool2dForward> kMaxForward(Backend::reference, on_record<max_forward>,
                                                       "fp32", "kiln");
const RegisterKernel<op::MaxPool2dBackward> kMaxBackward(Backend::reference,
                                                         on_record<max_backward>, "fp32", "kiln");
const RegisterKernel<op::AvgPool2dForward> kAvgForward(Backend::reference, on_record<avg_forward>,
                                                       "fp32", "kiln");
const RegisterKernel<op::AvgPool2dBackward> kAvgBackward(Backend::reference,
                                                         on_record<avg_backward>, "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
