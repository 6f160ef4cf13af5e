// CPU max and average pooling (NCHW), one (n, c) plane per OpenMP iteration. Windows are clipped
// to the input: max pooling never picks padding (PyTorch's implicit -inf), average pooling
// divides by the full kH·kW (count_include_pad). Max pooling records the flat index of each
// window's first maximum (a NaN beats any number, as in core/cpu/reduce.cpp), and its backward
// routes each gradient there; overlapping windows add up in a fixed order. oneDNN's pooling is
// not used: its max pooling lets a NaN lose to any number (a diverging layer would be hidden),
// and on kiln's plain NCHW layout it runs its simple, unvectorised implementation.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kiln/core/cpu/kernels.h"

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
// general loop, window by window in the order (0,0), (0,1), (1,0), (1,1), with the two rows
// walked together and no clipping arithmetic: several times faster than the general loop.
void max_pool2x2(const Window2d& g, const float* x, float* y, std::int32_t* argmax) {
  const Index planes = g.n * g.c, in_plane = g.h * g.w, out_plane = g.oh * g.ow;
#pragma omp parallel for if (planes * out_plane > 4096) schedule(static)
  for (Index p = 0; p < planes; ++p) {
    const float* in = x + p * in_plane;
    float* out = y + p * out_plane;
    std::int32_t* arg = argmax + p * out_plane;
    for (Index oh = 0; oh < g.oh; ++oh) {
      const Index r0 = 2 * oh * g.w, r1 = r0 + g.w;
      for (Index ow = 0; ow < g.ow; ++ow) {
        const Index c = 2 * ow;
        Index best = r0 + c;
        float v = in[best];
        const Index candidates[3] = {r0 + c + 1, r1 + c, r1 + c + 1};
        for (const Index i : candidates)
          if (beats(in[i], v)) {
            v = in[i];
            best = i;
          }
        out[oh * g.ow + ow] = v;
        arg[oh * g.ow + ow] = static_cast<std::int32_t>(best);
      }
    }
  }
}

}  // namespace

void max_pool2d_forward(const Window2d& g, const float* x, float* y, std::int32_t* argmax) {
  if (g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.ph == 0 && g.pw == 0)
    return max_pool2x2(g, x, y, argmax);
  const Index planes = g.n * g.c, in_plane = g.h * g.w, out_plane = g.oh * g.ow;
#pragma omp parallel for if (planes * out_plane > 4096) schedule(static)
  for (Index p = 0; p < planes; ++p) {
    const float* in = x + p * in_plane;
    for (Index oh = 0; oh < g.oh; ++oh)
      for (Index ow = 0; ow < g.ow; ++ow) {
        // Padding is at most half the kernel (checked by the dispatcher): never an empty window.
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

void max_pool2d_backward(const Window2d& g, const std::int32_t* argmax, const float* dy,
                         float* dx) {
  const Index planes = g.n * g.c, in_plane = g.h * g.w, out_plane = g.oh * g.ow;
#pragma omp parallel for if (planes * in_plane > 4096) schedule(static)
  for (Index p = 0; p < planes; ++p) {
    float* out = dx + p * in_plane;
    std::fill(out, out + in_plane, 0.0f);  // "=": dx is overwritten
    for (Index o = 0; o < out_plane; ++o) out[argmax[p * out_plane + o]] += dy[p * out_plane + o];
  }
}

void avg_pool2d_forward(const Window2d& g, const float* x, float* y) {
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

void avg_pool2d_backward(const Window2d& g, const float* dy, float* dx) {
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

}  // namespace kiln::cpu
