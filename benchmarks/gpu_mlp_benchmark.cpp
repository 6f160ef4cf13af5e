// kiln_gpu_mlp_benchmark: how close a kiln training step comes to cuBLAS's own GEMM rate on a
// large, GEMM-bound configuration (batch 4096, width 4096), for each matmul precision. The ratio
// kiln / cuBLAS is what the framework costs on top of the GEMMs (its elementwise kernels, launches
// and optimizer). A plain timed program printing a Markdown table.
//   kiln_gpu_mlp_benchmark [--batch 4096] [--width 4096] [--layers 4] [--steps 10] [--repeats 5]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <kiln/core/device.h>
#include <kiln/core/error.h>
#include <kiln/core/ops.h>
#include <kiln/core/precision.h>
#include <kiln/core/random.h>
#include <kiln/core/stream.h>
#include <kiln/layers/activations.h>
#include <kiln/layers/linear.h>
#include <kiln/models/sequential.h>
#include <kiln/optim/sgd.h>

namespace {

struct Options {
  std::int64_t batch = 4096, width = 4096, layers = 4, steps = 10, repeats = 5;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const std::int64_t value = std::atoll(argv[i + 1]);
    KILN_CHECK(value > 0, "{} needs a positive number, found '{}'", key, argv[i + 1]);
    if (key == "--batch")
      o.batch = value;
    else if (key == "--width")
      o.width = value;
    else if (key == "--layers")
      o.layers = value;
    else if (key == "--steps")
      o.steps = value;
    else if (key == "--repeats")
      o.repeats = value;
    else
      KILN_THROW("unknown option {}: expected --batch, --width, --layers, --steps or --repeats",
                 key);
  }
  return o;
}

// Each figure is the median of --repeats timings of --steps calls, timed with CUDA events after
// a warm-up.
// Median over `repeats` of the milliseconds `calls` calls of `work` take on the device's stream.
double median_ms(kiln::Device device, const Options& o, const std::function<void()>& work) {
  for (int i = 0; i < 2; ++i) work();  // warm-up: plans, workspaces, cached blocks
  kiln::Event start(device), end(device);
  std::vector<double> times;
  for (std::int64_t r = 0; r < o.repeats; ++r) {
    start.record();
    for (std::int64_t s = 0; s < o.steps; ++s) work();
    end.record();
    times.push_back(kiln::Event::elapsed_ms(start, end) / static_cast<double>(o.steps));
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

double tflops(double flops, double ms) { return flops / (ms * 1e-3) * 1e-12; }

}  // namespace

// The two rows of each precision:
//   cuBLAS:  one 4096 x 4096 x 4096 product through kiln::gemm (a single cuBLAS call), TFLOP/s.
//   kiln:    a full step of a 4-layer MLP of Linear(4096 -> 4096) + ReLU (fused forward,
//            zero_grad, backward, SGD with momentum), counted as 6 x batch x weights flops.
int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    KILN_CHECK(kiln::cuda_available(), "kiln_gpu_mlp_benchmark needs a GPU: {}",
               kiln::cuda_unavailable_reason());
    const kiln::Device gpu = kiln::Device::cuda(0);
    kiln::Generator gen(1);

    kiln::Tensor a = kiln::Tensor::empty({o.batch, o.width}, kiln::DType::f32, gpu);
    kiln::Tensor b = kiln::Tensor::empty({o.width, o.width}, kiln::DType::f32, gpu);
    kiln::Tensor c = kiln::Tensor::empty({o.batch, o.width}, kiln::DType::f32, gpu);
    kiln::uniform_(a, -1.0f, 1.0f, gen);
    kiln::uniform_(b, -1.0f, 1.0f, gen);

    kiln::Sequential net;
    for (std::int64_t i = 0; i < o.layers; ++i)
      net.emplace<kiln::Linear>(o.width, o.width, gen).emplace<kiln::ReLU>();
    net.to(gpu);
    kiln::Sgd sgd(net.parameters(), 1e-4f, {.momentum = 0.9f});
    kiln::Tensor dy = kiln::Tensor::empty({o.batch, o.width}, kiln::DType::f32, gpu);
    kiln::uniform_(dy, -1e-3f, 1e-3f, gen);

    const double gemm_flops = 2.0 * o.batch * o.width * o.width;
    const double step_flops = 6.0 * o.batch * o.width * o.width * o.layers;
    std::printf("GPU: %s; batch %lld, width %lld, %lld layers; medians of %lld x %lld calls\n\n",
                kiln::device_name(gpu).c_str(), static_cast<long long>(o.batch),
                static_cast<long long>(o.width), static_cast<long long>(o.layers),
                static_cast<long long>(o.repeats), static_cast<long long>(o.steps));
    std::printf("| precision | cuBLAS GEMM TFLOP/s | kiln MLP step TFLOP/s | kiln / cuBLAS |\n");
    std::printf("| --- | ---: | ---: | ---: |\n");
    for (kiln::MatmulPrecision p :
         {kiln::MatmulPrecision::fp32, kiln::MatmulPrecision::tf32, kiln::MatmulPrecision::bf16}) {
      kiln::set_matmul_precision(p);
      const double gemm_ms = median_ms(gpu, o, [&] { kiln::gemm(a, false, b, true, c); });
      const double step_ms = median_ms(gpu, o, [&] {
        sgd.zero_grad();
        net.forward(a);
        net.backward(dy);
        sgd.step();
      });
      const double cublas = tflops(gemm_flops, gemm_ms), kiln_rate = tflops(step_flops, step_ms);
      std::printf("| %s | %.1f | %.1f | %.0f %% |\n", kiln::matmul_precision_name(p), cublas,
                  kiln_rate, 100.0 * kiln_rate / cublas);
      std::fflush(stdout);
    }
    kiln::set_matmul_precision(kiln::MatmulPrecision::fp32);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kiln_gpu_mlp_benchmark: %s\n", e.what());
    return 1;
  }
}
