// GPU parity of batch normalisation against the CPU: the training forward (output, saved
// statistics, running statistics), the evaluation forward (the same float expressions: to the
// bit but for sqrt) and the backward (dx overwritten, dgamma/dbeta accumulated), for (N, C) and
// (N, C, L) at odd sizes, and repeatable bits.
#include <gtest/gtest.h>

#include <limits>

#include "kiln/core/ops.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kElementwiseRtol;
using testing::kGpu;
using testing::kReductionRtol;
using testing::on_gpu;
using testing::random_tensor;

const Shape kShapes[] = {Shape{2, 1},      Shape{7, 33},    Shape{1000, 7},
                         Shape{256, 1024}, Shape{3, 5, 17}, Shape{2, 4, 1000}};

TEST(BatchNormParity, TrainingForwardAndBackwardMatchCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 3500;
  for (const Shape& shape : kShapes) {
    SCOPED_TRACE(shape.str());
    const std::int64_t c = shape[1];
    const Tensor x = random_tensor(shape, seed++, -3.0f, 5.0f);
    const Tensor gamma = random_tensor({c}, seed++, 0.5f, 1.5f), beta = random_tensor({c}, seed++);
    const Tensor rm0 = random_tensor({c}, seed++), rv0 = random_tensor({c}, seed++, 0.5f, 2.0f);
    Tensor rm = rm0.clone(), rv = rv0.clone(), y = Tensor::empty(shape);
    Tensor mean = Tensor::empty({c}), invstd = Tensor::empty({c});
    batch_norm_forward_train(x, gamma, beta, rm, rv, y, mean, invstd, 0.1f, 1e-5f);

    const Tensor x_g = on_gpu(x), gamma_g = on_gpu(gamma), beta_g = on_gpu(beta);
    Tensor rm_g = on_gpu(rm0), rv_g = on_gpu(rv0);
    Tensor y_g = Tensor::full(shape, std::numeric_limits<float>::quiet_NaN(), kGpu);
    Tensor mean_g = Tensor::empty({c}, DType::f32, kGpu),
           invstd_g = Tensor::empty({c}, DType::f32, kGpu);
    batch_norm_forward_train(x_g, gamma_g, beta_g, rm_g, rv_g, y_g, mean_g, invstd_g, 0.1f, 1e-5f);
    EXPECT_TRUE(all_close(y_g, y, kReductionRtol, 1e-5f)) << "y";
    EXPECT_TRUE(all_close(mean_g, mean, kReductionRtol, 1e-6f)) << "save_mean";
    EXPECT_TRUE(all_close(invstd_g, invstd, kReductionRtol, 0.0f)) << "save_invstd";
    EXPECT_TRUE(all_close(rm_g, rm, kReductionRtol, 1e-6f)) << "running_mean";
    EXPECT_TRUE(all_close(rv_g, rv, kReductionRtol, 0.0f)) << "running_var";

    // Backward from the CPU's saved statistics on both devices.
    const Tensor dy = random_tensor(shape, seed++);
    const Tensor dgamma0 = random_tensor({c}, seed++), dbeta0 = random_tensor({c}, seed++);
    Tensor dx = Tensor::empty(shape), dgamma = dgamma0.clone(), dbeta = dbeta0.clone();
    batch_norm_backward(dy, x, gamma, mean, invstd, dx, dgamma, dbeta);
    Tensor dx_g = Tensor::full(shape, std::numeric_limits<float>::quiet_NaN(), kGpu);
    Tensor dgamma_g = on_gpu(dgamma0), dbeta_g = on_gpu(dbeta0);
    batch_norm_backward(on_gpu(dy), x_g, gamma_g, on_gpu(mean), on_gpu(invstd), dx_g, dgamma_g,
                        dbeta_g);
    EXPECT_TRUE(all_close(dx_g, dx, kReductionRtol, 1e-5f)) << "dx";
    EXPECT_TRUE(all_close(dgamma_g, dgamma, kReductionRtol, 1e-5f)) << "dgamma";
    EXPECT_TRUE(all_close(dbeta_g, dbeta, kReductionRtol, 1e-5f)) << "dbeta";
  }
}

TEST(BatchNormParity, EvalForwardMatchesCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 3600;
  for (const Shape& shape : kShapes) {
    SCOPED_TRACE(shape.str());
    const std::int64_t c = shape[1];
    const Tensor x = random_tensor(shape, seed++, -3.0f, 5.0f);
    const Tensor gamma = random_tensor({c}, seed++), beta = random_tensor({c}, seed++);
    const Tensor rm = random_tensor({c}, seed++), rv = random_tensor({c}, seed++, 0.1f, 3.0f);
    Tensor y = Tensor::empty(shape);
    batch_norm_forward_eval(x, gamma, beta, rm, rv, y, 1e-3f);
    Tensor y_g = Tensor::empty(shape, DType::f32, kGpu);
    batch_norm_forward_eval(on_gpu(x), on_gpu(gamma), on_gpu(beta), on_gpu(rm), on_gpu(rv), y_g,
                            1e-3f);
    EXPECT_TRUE(all_close(y_g, y, kElementwiseRtol, 1e-6f));
  }
}

TEST(BatchNormParity, RepeatedRunsGiveTheSameBits) {
  KILN_REQUIRE_GPU();
  const Tensor x = on_gpu(random_tensor({4099, 33}, 3700));
  const Tensor gamma = on_gpu(random_tensor({33}, 3701)), beta = on_gpu(random_tensor({33}, 3702));
  std::vector<float> first;
  for (int run = 0; run < 2; ++run) {
    Tensor rm = Tensor::zeros({33}, DType::f32, kGpu), rv = Tensor::full({33}, 1.0f, kGpu);
    Tensor y = Tensor::empty({4099, 33}, DType::f32, kGpu);
    Tensor mean = Tensor::empty({33}, DType::f32, kGpu),
           invstd = Tensor::empty({33}, DType::f32, kGpu);
    batch_norm_forward_train(x, gamma, beta, rm, rv, y, mean, invstd, 0.1f, 1e-5f);
    if (run == 0)
      first = y.to_vector<float>();
    else
      EXPECT_EQ(y.to_vector<float>(), first);
  }
}

}  // namespace
}  // namespace kiln
