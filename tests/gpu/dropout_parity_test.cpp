// GPU parity of dropout: the same (seed, offset) gives the same mask and output on both devices
// bit for bit, at odd sizes and offsets past 2^32; backward multiplies by that mask.
#include <gtest/gtest.h>

#include "kiln/core/ops.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::kGpu;
using testing::on_gpu;
using testing::random_tensor;

TEST(DropoutParity, MasksAndOutputsAreIdenticalToTheCpu) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 3800;
  const std::int64_t sizes[] = {1, 7, 1000, 40000};
  const std::uint64_t offsets[] = {0, 12345, (std::uint64_t{1} << 32) - 3};
  for (std::int64_t n : sizes)
    for (std::uint64_t offset : offsets)
      for (float p : {0.0f, 0.1f, 0.5f, 1.0f}) {
        SCOPED_TRACE(::testing::Message() << "n " << n << " offset " << offset << " p " << p);
        const Tensor x = random_tensor({n}, seed++);
        Tensor y = Tensor::empty({n}), mask = Tensor::empty({n});
        dropout_forward(x, y, mask, p, 99, offset);
        Tensor y_g = Tensor::empty({n}, DType::f32, kGpu),
               mask_g = Tensor::empty({n}, DType::f32, kGpu);
        dropout_forward(on_gpu(x), y_g, mask_g, p, 99, offset);
        EXPECT_EQ(mask_g.to_vector<float>(), mask.to_vector<float>());
        EXPECT_EQ(y_g.to_vector<float>(), y.to_vector<float>());

        const Tensor dy = random_tensor({n}, seed++);
        Tensor dx = Tensor::empty({n});
        dropout_backward(dy, mask, dx);
        Tensor dx_g = on_gpu(dy);  // in place: dx may alias dy
        dropout_backward(dx_g, mask_g, dx_g);
        EXPECT_EQ(dx_g.to_vector<float>(), dx.to_vector<float>());
      }
}

}  // namespace
}  // namespace kiln
