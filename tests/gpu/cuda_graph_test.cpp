// CudaGraph and train --cuda-graph on a GPU: a recorded piece of work replays with new inputs as
// if run eagerly, scratch blocks stay with the graph, a recorded optimizer update takes each
// replay's learning rate and bias corrections from its rows on the device, and training with the
// graph (short last batches, evaluation between epochs, cosine learning rate, SGD with momentum
// and AdamW) ends with the weights of eager training.
#include <gtest/gtest.h>

#include <sstream>

#include "apps/train/train_options.h"
#include "kiln/core/cuda_graph.h"
#include "kiln/core/ops.h"
#include "kiln/core/stream.h"
#include "kiln/io/safetensors.h"
#include "kiln/optim/lr_schedule.h"
#include "kiln/optim/step_scalars.h"
#include "kiln/spec/optimizer_spec.h"
#include "tests/gpu/gpu_parity.h"
#include "tests/optim/optim_testing.h"
#include "tests/support/train_testing.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kGpu;
using testing::on_gpu;
using testing::random_tensor;

TEST(CudaGraph, ReplaysRecordedWorkOnNewInputs) {
  KILN_REQUIRE_GPU();
  const Tensor w = random_tensor(Shape{1024, 256}, 1), bias = random_tensor(Shape{1024}, 2);
  const Tensor w_gpu = on_gpu(w), bias_gpu = on_gpu(bias);
  Tensor x = Tensor::zeros(Shape{64, 256}, DType::f32, kGpu),
         y = Tensor::zeros(Shape{64, 1024}, DType::f32, kGpu);
  Tensor row_sums = Tensor::zeros(Shape{64}, DType::f32, kGpu),
         squares = Tensor::zeros(Shape{1}, DType::f32, kGpu);
  auto work = [&] {
    linear_forward(x, w_gpu, bias_gpu, y, true);  // cuBLASLt, with its workspace
    reduce(ReduceOp::sum, y, 1, row_sums);
    sum_squares(y, squares);  // two passes over 65,536 elements, through scratch memory
  };
  work();  // the eager run the capture needs first
  CudaGraph graph;
  graph.capture(kGpu, work);
  ASSERT_TRUE(graph.captured());
  for (std::uint32_t seed : {3u, 4u, 5u}) {
    const Tensor input = random_tensor(Shape{64, 256}, seed);
    copy(input, x);
    graph.replay();
    Tensor expected_y = Tensor::zeros(Shape{64, 1024}), expected_sums = Tensor::zeros(Shape{64});
    Tensor expected_squares = Tensor::zeros(Shape{1});
    linear_forward(input, w, bias, expected_y, true);
    reduce(ReduceOp::sum, expected_y, 1, expected_sums);
    sum_squares(expected_y, expected_squares);
    EXPECT_TRUE(all_close(y, expected_y, 1e-4f, 2e-3f)) << "seed " << seed;
    EXPECT_TRUE(all_close(row_sums, expected_sums, 1e-4f, 1e-2f)) << "seed " << seed;
    EXPECT_TRUE(all_close(squares, expected_squares, 1e-4f, 0.0f)) << "seed " << seed;
  }
  graph.reset();
  EXPECT_FALSE(graph.captured());
}

TEST(CudaGraph, ARecordedUpdateReadsEachReplaysScalarsFromItsRows) {
  KILN_REQUIRE_GPU();
  constexpr std::int64_t kSteps = 6;
  const std::vector<std::int64_t> sizes = {1, 33, 4099, 70000};
  const auto schedule = cosine_lr(0.05f, kSteps);
  for (const char* name : {"momentum", "adamw"}) {
    SCOPED_TRACE(name);
    testing::FixedProblem cpu(sizes, 41), gpu(sizes, 41, kGpu);
    auto on_cpu = make_optimizer(name, cpu.parameters(), 0.05f, {.weight_decay = 0.01f});
    auto made = make_optimizer(name, gpu.parameters(), 0.05f, {.weight_decay = 0.01f});
    ASSERT_NE(as_recordable(*made), nullptr);
    RecordableOptimizer* on_gpu = as_recordable(*made);
    for (std::int64_t step = 0; step < kSteps; ++step) {
      cpu.set_gradients(step);
      on_cpu->set_lr(schedule->lr_at(step));
      on_cpu->step();
    }
    gpu.set_gradients(0);
    on_gpu->set_lr(schedule->lr_at(0));
    on_gpu->step();  // the state a recording needs
    StepScalars scalars;
    scalars.prepare(*on_gpu, *schedule, 1, kSteps - 1);
    CudaGraph graph;
    graph.capture(kGpu, [&] { on_gpu->record_step(scalars.rows()); });
    for (std::int64_t step = 1; step < kSteps; ++step) {
      gpu.set_gradients(step);  // into the gradients the graph reads
      graph.replay();
      on_gpu->replayed();
      scalars.replayed();
    }
    EXPECT_EQ(on_gpu->steps(), kSteps);
    EXPECT_EQ(scalars.rows().cursor->to_vector<std::int32_t>(),
              std::vector<std::int32_t>{kSteps - 1});
    for (std::size_t i = 0; i < sizes.size(); ++i)
      EXPECT_TRUE(all_close(gpu.value(i), cpu.value(i), testing::kElementwiseRtol, 1e-6f))
          << "parameter " << i;
  }
}

TEST(CudaGraph, TrainingWithTheGraphEndsWithTheWeightsOfEagerTraining) {
  KILN_REQUIRE_GPU();
  auto run = [](const std::string& optimizer, bool graphed) {
    // 1000 samples at batch 128: seven full batches and a short one in each epoch.
    kiln::TrainAppOptions o = kiln::testing::small_article_run("mlp:784-64-64-10", 1000, 128);
    o.device = "gpu";
    o.optimizer = optimizer;
    o.lr = optimizer == "adamw" ? 1e-3f : o.lr;
    o.schedule = "cosine";  // a new learning rate every step, read by the graph from its rows
    o.workers = 1;
    o.cuda_graph = graphed;
    o.checkpoint_dir = kiln::testing::fresh_checkpoint_dir("graph_" + optimizer +
                                                           (graphed ? "_graphed" : "_eager"));
    std::ostringstream out;
    return std::pair{o, kiln::train(o, out)};
  };
  for (const std::string optimizer : {"momentum", "adamw"}) {
    SCOPED_TRACE(optimizer);
    const auto [eager_options, eager] = run(optimizer, false);
    const auto [graph_options, graphed] = run(optimizer, true);
    ASSERT_EQ(graphed.epochs.size(), 2u);
    for (std::size_t e = 0; e < 2; ++e) {
      EXPECT_NEAR(graphed.epochs[e].train_loss, eager.epochs[e].train_loss, 1e-5) << "epoch " << e;
      EXPECT_NEAR(graphed.epochs[e].train_accuracy, eager.epochs[e].train_accuracy, 1e-6)
          << "epoch " << e;
      EXPECT_NEAR(graphed.epochs[e].test_accuracy, eager.epochs[e].test_accuracy, 1e-6)
          << "epoch " << e;
      EXPECT_GT(graphed.epochs[e].stages[kiln::Stage::graph], 0.0) << "no step was replayed";
      EXPECT_GT(eager.epochs[e].stages[kiln::Stage::copy], 0.0)
          << "the copies to the GPU were not timed";
    }
    const auto wa = kiln::load_safetensors(eager_options.checkpoint_dir + "/model.safetensors");
    const auto wb = kiln::load_safetensors(graph_options.checkpoint_dir + "/model.safetensors");
    ASSERT_EQ(wa.tensors.size(), wb.tensors.size());
    for (const auto& [name, tensor] : wa.tensors)
      EXPECT_TRUE(all_close(wb.tensors.at(name), tensor, 1e-5f, 1e-6f)) << name;
  }
}

}  // namespace
}  // namespace kiln
