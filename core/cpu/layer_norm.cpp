// CPU reference layer_norm over (rows, cols): each row's mean and biased variance summed in
// double, then the float expressions the CUDA kernels repeat term for term (fmas written out, so
// no compiler contracts them otherwise): y = fma((x - mean) * invstd, gamma, beta); backward
// dx = invstd * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * gamma, and the per-feature
// sums of dgamma (dy * xhat) and dbeta (dy) in double.
#include <cmath>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/ops/layer_norm.h"

namespace kiln::cpu {

namespace {

void forward(const rec::LayerNormForward& o) {
  const Index rows = o.rows, cols = o.cols;
  const float *x = o.x, *gamma = o.gamma, *beta = o.beta;
  float *save_mean = o.save_mean, *save_invstd = o.save_invstd;
#pragma omp parallel for if (rows * cols > kParallelMin) schedule(static)
  for (Index r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    double sum = 0.0;
    for (Index c = 0; c < cols; ++c) sum += xr[c];
    const double mean = sum / static_cast<double>(cols);
    double squares = 0.0;
    for (Index c = 0; c < cols; ++c) {
      const double d = xr[c] - mean;
      squares += d * d;
    }
    const double var = squares / static_cast<double>(cols);
    const float mean_f = static_cast<float>(mean);
    const float invstd = static_cast<float>(1.0 / std::sqrt(var + static_cast<double>(o.eps)));
    save_mean[r] = mean_f;
    save_invstd[r] = invstd;
    float* yr = o.y + r * cols;
    for (Index c = 0; c < cols; ++c) yr[c] = std::fma((xr[c] - mean_f) * invstd, gamma[c], beta[c]);
  }
}

void backward(const rec::LayerNormBackward& o) {
  const Index rows = o.rows, cols = o.cols;
  const float *dy = o.dy, *x = o.x, *gamma = o.gamma;
  const float *save_mean = o.save_mean, *save_invstd = o.save_invstd;
  const auto n = static_cast<double>(cols);
#pragma omp parallel for if (rows * cols > kParallelMin) schedule(static)
  for (Index r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    const float* dyr = dy + r * cols;
    const float mean = save_mean[r], invstd = save_invstd[r];
    double sum_g = 0.0, sum_gx = 0.0;
    for (Index c = 0; c < cols; ++c) {
      const float g = dyr[c] * gamma[c];
      sum_g += g;
      sum_gx += static_cast<double>(g) * ((xr[c] - mean) * invstd);
    }
    const auto mean_g = static_cast<float>(sum_g / n), mean_gx = static_cast<float>(sum_gx / n);
    float* dxr = o.dx + r * cols;
    for (Index c = 0; c < cols; ++c) {
      const float xhat = (xr[c] - mean) * invstd;
      // g rounded once (an fma with 0 is never contracted into the subtraction after it), so
      // g - mean(g) is exactly 0 where every g is equal, as on the GPU and in oneDNN.
      const float g = std::fma(dyr[c], gamma[c], 0.0f);
      dxr[c] = invstd * std::fma(-xhat, mean_gx, g - mean_g);
    }
  }
  // Per feature, over the rows: each column's sums belong to one thread.
#pragma omp parallel for if (rows * cols > kParallelMin) schedule(static)
  for (Index c = 0; c < cols; ++c) {
    double sum_dyx = 0.0, sum_dy = 0.0;
    for (Index r = 0; r < rows; ++r) {
      const float xhat = (x[r * cols + c] - save_mean[r]) * save_invstd[r];
      sum_dyx += static_cast<double>(dy[r * cols + c]) * xhat;
      sum_dy += dy[r * cols + c];
    }
    o.dgamma[c] += static_cast<float>(sum_dyx);
    o.dbeta[c] += static_cast<float>(sum_dy);
  }
}

const RegisterKernel<op::LayerNormForward> kForward(Backend::reference, on_record<forward>, "fp32",
                                                    "kiln");
const RegisterKernel<op::LayerNormBackward> kBackward(Backend::reference, on_record<backward>,
                                                      "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
