// MpiCommunicator, run as two or more ranks by mpirun (ctest label mpi): sum, mean and max over
// ranks of odd-sized tensors, broadcast from a rank other than 0, host values and the barrier.
#include <gtest/gtest.h>

#include "kiln/distributed/mpi_communicator.h"
#include "tests/support/tensor_testing.h"

namespace {
kiln::CommunicatorOptions test_options() { return {.timeout_s = 60}; }

// Rank r's value of element i: distinct per rank and element, exact in float.
float value(int rank, std::int64_t i) {
  return static_cast<float>((rank + 1) * 1000 + i % 97) * 0.25f;
}

kiln::Tensor rank_tensor(int rank, std::int64_t n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = value(rank, i);
  return kiln::Tensor::from_vector(v, kiln::Shape{n});
}
}  // namespace

TEST(MpiCommunicator, RunsUnderMpirunWithSeveralRanks) {
  const auto launch = kiln::mpi_launch_from_environment();
  ASSERT_TRUE(launch.has_value()) << "run this binary under mpirun (ctest -L mpi does)";
  kiln::MpiCommunicator comm(test_options());
  EXPECT_GE(comm.world_size(), 2);
  EXPECT_EQ(comm.world_size(), launch->world_size);
  EXPECT_EQ(comm.rank(), launch->rank);
  EXPECT_TRUE(kiln::mpi_initialized());
}

TEST(MpiCommunicator, SumMeanAndMaxOverRanksOfOddSizedTensors) {
  kiln::MpiCommunicator comm(test_options());
  const int world = comm.world_size();
  for (std::int64_t n : {1, 7, 33, 1000}) {
    kiln::Tensor sum = rank_tensor(comm.rank(), n), mean = sum.clone(), max = sum.clone();
    kiln::Tensor* s[] = {&sum};
    comm.all_reduce(s, kiln::CollectiveOp::sum);
    comm.all_reduce_async(mean, kiln::CollectiveOp::mean);
    comm.all_reduce_async(max, kiln::CollectiveOp::max);
    comm.wait_all();
    std::vector<float> want_sum(static_cast<std::size_t>(n)), want_mean(want_sum),
        want_max(want_sum);
    for (std::int64_t i = 0; i < n; ++i) {
      float total = 0;
      for (int r = 0; r < world; ++r) total += value(r, i);
      want_sum[static_cast<std::size_t>(i)] = total;
      want_mean[static_cast<std::size_t>(i)] = total / static_cast<float>(world);
      want_max[static_cast<std::size_t>(i)] = value(world - 1, i);
    }
    EXPECT_TRUE(kiln::testing::all_close(sum.to_vector<float>(), want_sum, 1e-6f, 0))
        << "n = " << n;
    EXPECT_TRUE(kiln::testing::all_close(mean.to_vector<float>(), want_mean, 1e-6f, 0))
        << "n = " << n;
    EXPECT_EQ(max.to_vector<float>(), want_max) << "n = " << n;
  }
}

TEST(MpiCommunicator, BroadcastCopiesTheRootsTensorsEverywhere) {
  kiln::MpiCommunicator comm(test_options());
  const int root = comm.world_size() - 1;
  kiln::Tensor a = rank_tensor(comm.rank(), 33),
               b = rank_tensor(comm.rank(), 7).view(kiln::Shape{7, 1});
  kiln::Tensor* both[] = {&a, &b};
  comm.broadcast(both, root);
  EXPECT_EQ(a.to_vector<float>(), rank_tensor(root, 33).to_vector<float>());
  EXPECT_EQ(b.to_vector<float>(), rank_tensor(root, 7).to_vector<float>());
}

TEST(MpiCommunicator, HostValuesAndBarrier) {
  kiln::MpiCommunicator comm(test_options());
  const int world = comm.world_size();
  double v[3] = {1.0 + comm.rank(), -static_cast<double>(comm.rank()), 0.5};
  comm.all_reduce_host(v, kiln::CollectiveOp::sum);
  EXPECT_EQ(v[0], world + world * (world - 1) / 2.0);
  EXPECT_EQ(v[2], 0.5 * world);
  double m[2] = {static_cast<double>(comm.rank()), 3.0};
  comm.all_reduce_host(m, kiln::CollectiveOp::max);
  EXPECT_EQ(m[0], world - 1);
  double mean[1] = {static_cast<double>(comm.rank())};
  comm.all_reduce_host(mean, kiln::CollectiveOp::mean);
  EXPECT_DOUBLE_EQ(mean[0], (world - 1) / 2.0);
  comm.barrier();
}
