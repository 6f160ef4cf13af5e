// Work across two GPUs of one process (needs two: skips with the reason on fewer, and
// scripts/gpu-check.sh leaves the suite out there): a copy from one GPU to another starts after
// the kernels that produce its source on the first GPU's stream.
#include <gtest/gtest.h>

#include "kiln/core/ops.h"
#include "kiln/core/stream.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::random_tensor;

TEST(TwoGpus, ACopyToTheOtherGpuWaitsForTheKernelsProducingItsSource) {
  KILN_REQUIRE_GPU();
  if (cuda_device_count() < 2) GTEST_SKIP() << "needs two GPUs, found " << cuda_device_count();
  const Device first = Device::cuda(0), second = Device::cuda(1);
  const Tensor big = random_tensor(Shape{4096, 4096}, 3300).to(first);
  const Tensor x = random_tensor(Shape{1 << 20}, 3301);
  Tensor expected = x.clone();
  scale(expected, 3.0f);
  Tensor source = x.to(first);
  for (int i = 0; i < 8; ++i) (void)matmul(big, big);  // milliseconds of work ahead of the scale
  scale(source, 3.0f);                                 // queued on the first GPU's stream
  Tensor target = Tensor::zeros(Shape{1 << 20}, DType::f32, second);
  copy(source, target);  // on the second GPU's stream: must wait for the scale
  EXPECT_TRUE(all_close(target, expected, 0.0f, 0.0f));

  Tensor target_async = Tensor::zeros(Shape{1 << 20}, DType::f32, second);
  for (int i = 0; i < 8; ++i) (void)matmul(big, big);
  scale(source, 1.0f / 3.0f);
  const Stream side = Stream::create(second);
  copy_async(source, target_async, side);
  side.synchronize();
  EXPECT_TRUE(all_close(target_async, x, 1e-6f, 0.0f));
}

}  // namespace
}  // namespace kiln
