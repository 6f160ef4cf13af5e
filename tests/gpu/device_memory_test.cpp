// The device memory rules behind streams, graphs and threads, seen through the public API: a block
// freed while another stream still uses it is not reused before that stream passes the free; a CUDA
// graph keeps the library workspace it recorded with while eager work takes its own, and a
// temporary of the recorded work stays with the graph; a thread's library state (cuBLASLt handles
// and plans, the 32 MiB workspace per stream) goes back when the thread ends.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "kiln/core/cuda_graph.h"
#include "kiln/core/memory.h"
#include "kiln/core/ops.h"
#include "kiln/core/stream.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kGpu;
using testing::kReductionRtol;
using testing::on_gpu;
using testing::random_tensor;

constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;  // stream_workspace.h's

// Enough work on the current stream to keep it busy for milliseconds, so that what is queued
// behind it is certainly still pending when the host looks.
void keep_the_stream_busy(const Tensor& a) {
  for (int i = 0; i < 8; ++i) (void)matmul(a, a);
}

TEST(DeviceMemory, ABlockAnotherStreamStillReadsIsNotReusedUntilThatStreamHasPassedTheFree) {
  KILN_REQUIRE_GPU();
  const Tensor big = on_gpu(random_tensor(Shape{4096, 4096}, 3000));
  const Tensor x = random_tensor(Shape{1 << 20}, 3001);
  Tensor source = on_gpu(x);  // allocated on the current stream
  const void* block = source.raw_data();
  keep_the_stream_busy(big);
  Event ready(kGpu);
  ready.record();
  const Stream side = Stream::create(kGpu);
  side.wait(ready);  // the copy below waits behind the matmuls
  Tensor back = Tensor::empty_pinned(Shape{1 << 20});
  copy_async(source, back, side);  // copy_async marks `source` as used on `side`
  source = Tensor();               // freed while the copy is still queued
  const Tensor next = Tensor::empty(Shape{1 << 20}, DType::f32, kGpu);
  EXPECT_NE(next.raw_data(), block) << "handed out again while the side stream still reads it";
  side.synchronize();
  EXPECT_EQ(back.to_vector<float>(), x.to_vector<float>());
  // Once the side stream has passed the free, the block serves the current stream again.
  const Tensor again = Tensor::empty(Shape{1 << 20}, DType::f32, kGpu);
  EXPECT_EQ(again.raw_data(), block);
}

TEST(DeviceMemory, ACudaGraphKeepsItsLibraryWorkspaceAndEagerWorkTakesAnother) {
  KILN_REQUIRE_GPU();
  const Tensor x = random_tensor(Shape{64, 256}, 3100), w = random_tensor(Shape{512, 256}, 3101);
  const Tensor bias = random_tensor(Shape{512}, 3102);
  const Tensor x_gpu = on_gpu(x), w_gpu = on_gpu(w), bias_gpu = on_gpu(bias);
  Tensor expected = Tensor::zeros(Shape{64, 512});
  linear_forward(x, w, bias, expected, true);
  Tensor y_eager = Tensor::zeros(Shape{64, 512}, DType::f32, kGpu),
         y_graph = Tensor::zeros(Shape{64, 512}, DType::f32, kGpu);
  linear_forward(x_gpu, w_gpu, bias_gpu, y_eager, true);  // the stream's workspace exists now
  const std::size_t eager_only = memory_stats(kGpu).in_use;

  CudaGraph graph;
  graph.capture(kGpu, [&] { linear_forward(x_gpu, w_gpu, bias_gpu, y_graph, true); });
  linear_forward(x_gpu, w_gpu, bias_gpu, y_eager, true);  // eager again, beside the graph
  // One workspace for the graph's replays, one for eager work: none shared, none freed under
  // the graph.
  EXPECT_EQ(memory_stats(kGpu).in_use, eager_only + kWorkspaceBytes);
  for (int replay = 0; replay < 3; ++replay) {
    graph.replay();
    linear_forward(x_gpu, w_gpu, bias_gpu, y_eager, true);
  }
  EXPECT_TRUE(all_close(y_graph, expected, kReductionRtol, 1e-3f));
  EXPECT_TRUE(all_close(y_eager, expected, kReductionRtol, 1e-3f));
  graph.reset();  // the graph's workspace goes back with it
  EXPECT_EQ(memory_stats(kGpu).in_use, eager_only);
}

// A tensor the captured work allocates and frees (a layer's temporary) is written at every
// replay: the capture's private pool keeps it from eager work until the graph is reset.
TEST(DeviceMemory, ATemporaryOfACapturedStepStaysWithTheGraphUntilReset) {
  KILN_REQUIRE_GPU();
  const Tensor x = random_tensor(Shape{1 << 16}, 3200);
  const Tensor x_gpu = on_gpu(x);
  Tensor y = Tensor::zeros(Shape{1 << 16}, DType::f32, kGpu);
  const void* temporary = nullptr;
  auto step = [&] {
    Tensor squares = Tensor::empty(Shape{1 << 16}, DType::f32, kGpu);
    binary(BinaryOp::mul, x_gpu, x_gpu, squares);
    binary(BinaryOp::add, squares, x_gpu, y);
    temporary = squares.raw_data();
  };  // `squares` is freed here, inside the capture
  step();
  CudaGraph graph;
  graph.capture(kGpu, step);
  const void* recorded = temporary;
  const Tensor eager = Tensor::empty(Shape{1 << 16}, DType::f32, kGpu);  // same size and stream
  EXPECT_NE(eager.raw_data(), recorded) << "eager work got a block every replay writes";
  graph.replay();
  std::vector<float> expected = x.to_vector<float>();
  for (float& v : expected) v = v * v + v;
  EXPECT_TRUE(all_close(y, Tensor::from_vector(expected, Shape{1 << 16}), 1e-6f, 1e-6f));
  graph.reset();  // the pool goes back to the shared cache
  const Tensor after = Tensor::empty(Shape{1 << 16}, DType::f32, kGpu);
  EXPECT_EQ(after.raw_data(), recorded);
}

TEST(DeviceMemory, AThreadsLibraryStateGoesBackWhenTheThreadEnds) {
  KILN_REQUIRE_GPU();
  const Tensor x = random_tensor(Shape{33, 64}, 3200), w = random_tensor(Shape{16, 64}, 3201);
  Tensor expected = Tensor::zeros(Shape{33, 16});
  linear_forward(x, w, Tensor(), expected, false);
  const Tensor x_gpu = on_gpu(x), w_gpu = on_gpu(w);
  const std::size_t before = memory_stats(kGpu).in_use;
  for (int round = 0; round < 3; ++round) {  // a leak would grow by a workspace each round
    Tensor y = Tensor::zeros(Shape{33, 16}, DType::f32, kGpu);
    std::thread worker([&] {
      linear_forward(x_gpu, w_gpu, Tensor(), y, false);  // cuBLASLt state of this thread
      (void)matmul(x_gpu, w_gpu, false, true);           // and cuBLAS's workspace
      Stream::current(kGpu).synchronize();
    });
    worker.join();
    EXPECT_TRUE(all_close(y, expected, kReductionRtol, 1e-3f));
    y = Tensor();
    EXPECT_EQ(memory_stats(kGpu).in_use, before) << "round " << round;
  }
}

}  // namespace
}  // namespace kiln
