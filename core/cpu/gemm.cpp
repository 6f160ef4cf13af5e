// CPU GEMM: c (m, n) = alpha * op(a) @ op(b) + beta * c on row-major buffers, through oneDNN's
// matmul when that path is selected (core/cpu_compute.h); else, the reference, through OpenBLAS's
// sgemm when kiln was built with its OpenMP build (cmake/KilnBlas.cmake), or Eigen's blocked,
// vectorised product.
#include <Eigen/Core>
#if KILN_OPENBLAS
#include <cblas.h>
#endif

#include "kiln/core/cpu/bf16.h"
#include "kiln/core/cpu/gemm.h"
#include "kiln/core/cpu/onednn/onednn.h"
#include "kiln/core/ops/gemm.h"
#include "kiln/core/precision.h"

namespace kiln::cpu {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
using MatrixMap = Eigen::Map<RowMatrix>;

// op_a, op_b: Eigen expressions of shape (m, k) and (k, n). noalias() lets Eigen write the
// product straight into c; alpha is folded into the kernel rather than applied afterwards.
template <typename OpA, typename OpB>
void multiply(const OpA& op_a, const OpB& op_b, float alpha, float beta, MatrixMap& c) {
  if (beta == 0.0f) {
    c.noalias() = alpha * op_a * op_b;
  } else {
    if (beta != 1.0f) c *= beta;
    c.noalias() += alpha * op_a * op_b;
  }
}

}  // namespace

const char* reference_gemm_name() {
#if KILN_OPENBLAS
  return "OpenBLAS";
#else
  return "Eigen";
#endif
}

// Under MatmulPrecision::bf16 the inputs are rounded to bf16 on both paths. Both parallelise over
// OpenMP's thread pool (core/parallel.h), the same pool kiln's own loops use. beta == 0 overwrites
// c without reading it (as BLAS does), so uninitialised or NaN output memory never leaks into the
// result.
void gemm(const rec::Gemm& o) {
  const bool trans_a = o.trans_a, trans_b = o.trans_b;
  const Index m = o.m, n = o.n, k = o.k;
  const float alpha = o.alpha, beta = o.beta;
  const float *a = o.a, *b = o.b;
  float* c = o.out;
  if (m == 0 || n == 0) return;
  MatrixMap c_map(c, m, n);
  // Nothing to multiply: c = beta * c, and with beta == 0 not even read (it may hold NaN).
  if (k == 0 || alpha == 0.0f) {
    if (beta == 0.0f)
      c_map.setZero();
    else if (beta != 1.0f)
      c_map *= beta;
    return;
  }
  const bool bf16 = bf16_products();
  if (onednn::active()) return onednn::gemm(o, bf16);
  if (bf16) {
    a = rounded_to_bf16(a, m * k, 0);
    b = rounded_to_bf16(b, k * n, 1);
  }
#if KILN_OPENBLAS
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, static_cast<blasint>(m), static_cast<blasint>(n),
              static_cast<blasint>(k), alpha, a, static_cast<blasint>(trans_a ? m : k), b,
              static_cast<blasint>(trans_b ? k : n), beta, c, static_cast<blasint>(n));
#else
  // a is stored (m, k), or (k, m) when transposed; likewise b is (k, n) or (n, k).
  const ConstMatrixMap a_map(a, trans_a ? k : m, trans_a ? m : k);
  const ConstMatrixMap b_map(b, trans_b ? n : k, trans_b ? k : n);
  if (!trans_a && !trans_b) return multiply(a_map, b_map, alpha, beta, c_map);
  if (!trans_a && trans_b) return multiply(a_map, b_map.transpose(), alpha, beta, c_map);
  if (trans_a && !trans_b) return multiply(a_map.transpose(), b_map, alpha, beta, c_map);
  multiply(a_map.transpose(), b_map.transpose(), alpha, beta, c_map);
#endif
}

namespace {

const RegisterKernel<op::Gemm> kGemm(Backend::reference, on_record<gemm>, "fp32 bf16",
                                     reference_gemm_name());

}  // namespace

}  // namespace kiln::cpu
