// GradientReducer: buckets in reverse parameter order up to the size limit, grads become views of
// one flat buffer per bucket, buckets start strictly in order as backward reports them ready, and
// the result is the mean over ranks (here over a simulated second rank).
#include <gtest/gtest.h>

#include "kiln/core/ops.h"
#include "kiln/distributed/communicator.h"
#include "kiln/distributed/gradient_reducer.h"
#include "kiln/layers/gradient_ready_hook.h"
#include "kiln/layers/linear.h"
#include "kiln/models/sequential.h"
#include "tests/support/tensor_testing.h"

namespace {

// Rank 0 of two, whose peer's gradients are `peer_value` everywhere; records what it was asked.
class TwoRankSimulation final : public kiln::Communicator {
 public:
  TwoRankSimulation(bool overlaps, float peer_value)
      : Communicator(0, 2, kiln::Device::cpu()), overlaps_(overlaps), peer_value_(peer_value) {}
  std::string describe() const override { return "simulated rank 0 of 2"; }
  bool overlaps_compute() const override { return overlaps_; }
  std::vector<std::int64_t> started;  // numel of each all-reduce, in order
  int waits = 0;

 protected:
  void all_reduce_async_impl(kiln::Tensor& x, kiln::CollectiveOp op) override {
    EXPECT_EQ(op, kiln::CollectiveOp::mean);
    started.push_back(x.numel());
    float* p = x.data<float>();
    for (std::int64_t i = 0; i < x.numel(); ++i) p[i] = (p[i] + peer_value_) / 2.0f;
  }
  void wait_all_impl() override { ++waits; }
  void broadcast_impl(kiln::Tensor&, int) override {}
  void all_reduce_host_impl(std::span<double>, kiln::CollectiveOp) override {}
  void barrier_impl() override {}

 private:
  bool overlaps_;
  float peer_value_;
};

// 4 Linear layers of odd sizes: 8 parameters.
std::shared_ptr<kiln::Sequential> small_net() {
  kiln::Generator gen(3);
  auto net = std::make_shared<kiln::Sequential>();
  net->emplace<kiln::Linear>(7, 33, gen).emplace<kiln::Linear>(33, 20, gen);
  net->emplace<kiln::Linear>(20, 9, gen).emplace<kiln::Linear>(9, 5, gen);
  return net;
}

}  // namespace

TEST(GradientReducer, FillsBucketsInReverseParameterOrderUpToTheSizeLimit) {
  auto net = small_net();
  TwoRankSimulation comm(false, 0.0f);
  // 33*20 = 660 floats = 2640 bytes: a 3000-byte limit holds that weight and little else.
  kiln::GradientReducer reducer(net->parameters(), comm, 3000);
  const auto names = reducer.bucket_names();
  std::vector<std::string> flat;
  for (const auto& bucket : names) flat.insert(flat.end(), bucket.begin(), bucket.end());
  std::vector<std::string> reversed;
  for (auto* p : net->parameters()) reversed.insert(reversed.begin(), p->name);
  EXPECT_EQ(flat, reversed);
  EXPECT_GT(reducer.bucket_count(), 2u);
  EXPECT_LT(reducer.bucket_count(), 8u);
  kiln::GradientReducer one(net->parameters(), comm);  // 25 MiB: everything in one bucket
  EXPECT_EQ(one.bucket_count(), 1u);
}

TEST(GradientReducer, GradientsBecomeViewsThatKeepTheirValues) {
  auto net = small_net();
  std::vector<std::vector<float>> before;
  for (auto* p : net->parameters()) {
    p->grad = kiln::testing::random_tensor(p->value.shape(), 11);
    before.push_back(p->grad.to_vector<float>());
  }
  TwoRankSimulation comm(false, 0.0f);
  kiln::GradientReducer reducer(net->parameters(), comm, 3000);
  const auto params = net->parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    EXPECT_EQ(params[i]->grad.shape(), params[i]->value.shape());
    EXPECT_EQ(params[i]->grad.to_vector<float>(), before[i]) << params[i]->name;
  }
  // Within a bucket the grads share one buffer.
  EXPECT_TRUE(params[6]->grad.shares_storage_with(params[7]->grad));
}

TEST(GradientReducer, TakesTheMeanOverRanksOfEveryGradient) {
  auto net = small_net();
  TwoRankSimulation comm(false, 1.0f);
  kiln::GradientReducer reducer(net->parameters(), comm, 3000);
  const kiln::Tensor x = kiln::testing::random_tensor(kiln::Shape{13, 7}, 5);
  net->zero_grad();
  const kiln::Tensor y = net->forward(x);
  net->backward(kiln::Tensor::full(y.shape(), 1.0f));
  std::vector<std::vector<float>> local;
  for (auto* p : net->parameters()) local.push_back(p->grad.to_vector<float>());
  reducer.finish();
  EXPECT_EQ(comm.started.size(), reducer.bucket_count());
  EXPECT_EQ(comm.waits, 1);
  const auto params = net->parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    std::vector<float> expected = local[i];
    for (float& v : expected) v = (v + 1.0f) / 2.0f;
    EXPECT_TRUE(
        kiln::testing::all_close(params[i]->grad.to_vector<float>(), expected, 1e-6f, 1e-7f))
        << params[i]->name;
  }
}

TEST(GradientReducer, WithOverlapStartsEachBucketAsSoonAsBackwardHasProducedIt) {
  auto net = small_net();
  TwoRankSimulation comm(true, 0.0f);
  kiln::GradientReducer reducer(net->parameters(), comm, 3000);
  std::vector<std::size_t> started_after_layer;
  kiln::set_gradient_ready_hook(*net, [&](kiln::Module& layer) {
    const auto produced = layer.parameters();
    reducer.ready(produced);
    started_after_layer.push_back(comm.started.size());
  });
  const kiln::Tensor y = net->forward(kiln::testing::random_tensor(kiln::Shape{3, 7}, 6));
  net->backward(kiln::Tensor::full(y.shape(), 1.0f));
  // Backward reports the last layer first. The buckets (3: layers 3-2 and the bias of 1, the
  // weight of 1, then layer 0) start in order, the first two before layer 0's backward ran.
  ASSERT_EQ(started_after_layer.size(), 4u);
  ASSERT_EQ(reducer.bucket_count(), 3u);
  EXPECT_EQ(started_after_layer[1], 0u);
  EXPECT_EQ(started_after_layer[2], 2u);
  EXPECT_EQ(started_after_layer.back(), reducer.bucket_count());
  for (std::size_t i = 1; i < started_after_layer.size(); ++i)
    EXPECT_GE(started_after_layer[i], started_after_layer[i - 1]);
  reducer.finish();
  EXPECT_EQ(comm.started.size(), reducer.bucket_count());  // nothing started twice
  // The next step starts again from the first bucket.
  const kiln::Tensor y2 = net->forward(kiln::testing::random_tensor(kiln::Shape{3, 7}, 7));
  net->backward(kiln::Tensor::full(y2.shape(), 1.0f));
  reducer.finish();
  EXPECT_EQ(comm.started.size(), 2 * reducer.bucket_count());
}
