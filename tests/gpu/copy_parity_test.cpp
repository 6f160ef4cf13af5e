// Host <-> device copies: to() both ways, copy() between every pair of devices, copy_async() on a
// stream of its own from pinned and from pageable memory (ordered after compute by an event),
// int32 tensors, and slices and views of device tensors read back row by row.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kiln/core/ops.h"
#include "kiln/core/stream.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kGpu;
using testing::on_gpu;
using testing::random_labels;
using testing::random_tensor;

constexpr std::int64_t kSizes[] = {1, 7, 33, 1000, 4099, 1 << 20};

TEST(CopyParity, RoundTripThroughTheDeviceKeepsEveryBit) {
  KILN_REQUIRE_GPU();
  std::uint32_t seed = 2000;
  for (std::int64_t n : kSizes) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    const Tensor x = random_tensor(Shape{n}, seed++);
    const Tensor d = on_gpu(x);
    ASSERT_EQ(d.device(), kGpu);
    EXPECT_EQ(d.to(Device::cpu()).to_vector<float>(), x.to_vector<float>());
    EXPECT_EQ(d.to_vector<float>(), x.to_vector<float>());

    Tensor host = Tensor::empty(Shape{n}), device = Tensor::empty(Shape{n}, DType::f32, kGpu);
    copy(x, device);
    Tensor device2 = Tensor::empty(Shape{n}, DType::f32, kGpu);
    copy(device, device2);  // device to device
    copy(device2, host);
    EXPECT_EQ(host.to_vector<float>(), x.to_vector<float>());
  }
}

TEST(CopyParity, IntTensorsRoundTrip) {
  KILN_REQUIRE_GPU();
  const Tensor labels = random_labels(4099, 10, 2100);
  EXPECT_EQ(on_gpu(labels).to_vector<std::int32_t>(), labels.to_vector<std::int32_t>());
}

TEST(CopyParity, AsyncCopiesOnASideStreamFromPinnedAndPageableMemory) {
  KILN_REQUIRE_GPU();
  const Stream side = Stream::create(kGpu);
  std::uint32_t seed = 2200;
  for (std::int64_t n : kSizes)
    for (bool pinned : {true, false}) {
      SCOPED_TRACE(::testing::Message() << "n " << n << (pinned ? " pinned" : " pageable"));
      const Tensor x = random_tensor(Shape{n}, seed++);
      Tensor src = pinned ? Tensor::empty_pinned(Shape{n}) : Tensor::empty(Shape{n});
      EXPECT_EQ(src.is_pinned(), pinned);
      copy(x, src);
      Tensor device = Tensor::empty(Shape{n}, DType::f32, kGpu);
      copy_async(src, device, side);
      Tensor back = pinned ? Tensor::empty_pinned(Shape{n}) : Tensor::empty(Shape{n});
      copy_async(device, back, side);  // same stream: ordered after the upload
      side.synchronize();
      EXPECT_EQ(back.to_vector<float>(), x.to_vector<float>());
    }
}

TEST(CopyParity, AsyncDownloadWaitsForComputeThroughAnEvent) {
  KILN_REQUIRE_GPU();
  const Tensor x = random_tensor(Shape{1 << 20}, 2300);
  Tensor expected = x.clone();
  scale(expected, 3.0f);

  Tensor device = on_gpu(x);
  scale(device, 3.0f);  // queued on the current stream
  Event done(kGpu);
  done.record();
  const Stream side = Stream::create(kGpu);
  side.wait(done);
  Tensor back = Tensor::empty_pinned(Shape{1 << 20});
  copy_async(device, back, side);
  side.synchronize();
  EXPECT_TRUE(all_close(back, expected, 0.0f, 0.0f));
}

TEST(CopyParity, SlicesAndViewsOfDeviceTensorsReadBackTheirRows) {
  KILN_REQUIRE_GPU();
  const Tensor x = random_tensor(Shape{33, 7}, 2400);
  const Tensor d = on_gpu(x);
  for (const auto& [begin, end] :
       {std::pair{0, 1}, std::pair{2, 5}, std::pair{32, 33}, std::pair{0, 33}}) {
    SCOPED_TRACE(::testing::Message() << "rows [" << begin << ", " << end << ")");
    const Tensor rows = d.slice(begin, end);
    ASSERT_EQ(rows.device(), kGpu);
    EXPECT_EQ(rows.to_vector<float>(), x.slice(begin, end).to_vector<float>());
    EXPECT_EQ(rows.to(Device::cpu()).to_vector<float>(), x.slice(begin, end).to_vector<float>());
  }
  // A slice of a slice, and a view of it.
  const Tensor inner = d.slice(3, 20).slice(4, 9);
  EXPECT_EQ(inner.to_vector<float>(), x.slice(7, 12).to_vector<float>());
  EXPECT_EQ(inner.view(Shape{35}).to_vector<float>(),
            x.slice(7, 12).view(Shape{35}).to_vector<float>());

  // Writing into a device slice changes only those rows of the parent.
  Tensor target = Tensor::zeros(Shape{33, 7}, DType::f32, kGpu);
  Tensor target_rows = target.slice(10, 13);
  copy(x.slice(0, 3), target_rows);
  const std::vector<float> all = target.to_vector<float>(), source = x.to_vector<float>();
  for (std::int64_t i = 0; i < 33 * 7; ++i) {
    const bool inside = i >= 10 * 7 && i < 13 * 7;
    ASSERT_EQ(all[i], inside ? source[i - 10 * 7] : 0.0f) << "element " << i;
  }
}

}  // namespace
}  // namespace kiln
