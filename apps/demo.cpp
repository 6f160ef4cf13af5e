// kiln-demo: the tensor core at work until the train app exists. It fits a softmax classifier
// to a synthetic, linearly separable problem with nothing but core ops (gemm, bias, fused
// softmax cross-entropy, axpy), on the device asked for, and prints the loss as it falls.
#include <CLI/CLI.hpp>

#include "apps/support/number_flags.h"

#include <chrono>
#include <cstdio>

#include <kiln/kiln.h>

namespace {

struct Options {
  std::string device = "cpu";
  std::int64_t samples = 4096;
  std::int64_t features = 784;
  std::int64_t classes = 10;
  int steps = 200;
  float lr = 0.5f;
  int threads = 0;
  std::uint64_t seed = 1;
};

// Labels are the argmax of a hidden linear map of the inputs, so a linear model can fit them.
void make_problem(const Options& o, kiln::Device device, kiln::Tensor& x, kiln::Tensor& y) {
  kiln::Generator gen(o.seed);
  x = kiln::Tensor::empty({o.samples, o.features}, kiln::DType::f32, device);
  kiln::normal_(x, 0.0f, 1.0f, gen);
  kiln::Tensor teacher = kiln::Tensor::empty({o.classes, o.features}, kiln::DType::f32, device);
  kiln::normal_(teacher, 0.0f, 1.0f, gen);
  const kiln::Tensor scores = kiln::matmul(x, teacher, false, true);
  y = kiln::Tensor::empty({o.samples}, kiln::DType::i32, device);
  kiln::argmax(scores, 1, y);
}

int run(const Options& o) {
  if (o.threads > 0) kiln::set_num_threads(o.threads);
  const kiln::Device device = kiln::Device::parse(o.device);
  kiln::Tensor x, y;
  make_problem(o, device, x, y);

  kiln::Generator gen(o.seed + 1);
  kiln::Tensor w = kiln::Tensor::empty({o.classes, o.features}, kiln::DType::f32, device);
  kiln::xavier_uniform_(w, gen);
  kiln::Tensor b = kiln::Tensor::zeros({o.classes}, kiln::DType::f32, device);
  kiln::Tensor dw = kiln::Tensor::empty(w.shape(), kiln::DType::f32, device);
  kiln::Tensor db = kiln::Tensor::empty(b.shape(), kiln::DType::f32, device);
  kiln::Tensor logits = kiln::Tensor::empty({o.samples, o.classes}, kiln::DType::f32, device);
  kiln::Tensor probs = kiln::Tensor::empty(logits.shape(), kiln::DType::f32, device);
  kiln::Tensor dlogits = kiln::Tensor::empty(logits.shape(), kiln::DType::f32, device);
  kiln::Tensor losses = kiln::Tensor::empty({o.samples}, kiln::DType::f32, device);
  kiln::Tensor loss = kiln::Tensor::empty(kiln::Shape{}, kiln::DType::f32, device);  // a scalar
  kiln::Tensor predicted = kiln::Tensor::empty({o.samples}, kiln::DType::i32, device);

  std::printf("kiln-demo: softmax regression, %lld samples x %lld features, %lld classes, on %s\n",
              static_cast<long long>(o.samples), static_cast<long long>(o.features),
              static_cast<long long>(o.classes), device.str().c_str());
  const auto start = std::chrono::steady_clock::now();
  for (int step = 0; step <= o.steps; ++step) {
    kiln::gemm(x, false, w, true, logits);  // (N, F) @ (C, F)ᵀ -> (N, C)
    kiln::bias_add(logits, b);
    kiln::softmax_cross_entropy_forward(logits, y, probs, losses);
    if (step % (o.steps / 5 == 0 ? 1 : o.steps / 5) == 0) {
      kiln::reduce(kiln::ReduceOp::mean, losses, 0, loss);
      kiln::argmax(logits, 1, predicted);
      const auto p = predicted.to_vector<std::int32_t>();
      const auto t = y.to_vector<std::int32_t>();
      std::int64_t correct = 0;
      for (std::size_t i = 0; i < p.size(); ++i) correct += p[i] == t[i];
      std::printf("  step %4d  loss %.4f  accuracy %.1f %%\n", step, loss.item(),
                  100.0 * static_cast<double>(correct) / static_cast<double>(o.samples));
    }
    if (step == o.steps) break;
    kiln::softmax_cross_entropy_backward(probs, y, dlogits, 1.0f / static_cast<float>(o.samples));
    kiln::gemm(dlogits, true, x, false, dw);  // (N, C)ᵀ @ (N, F) -> (C, F)
    kiln::fill(db, 0.0f);
    kiln::bias_grad(dlogits, db);
    kiln::axpy(-o.lr, dw, w);
    kiln::axpy(-o.lr, db, b);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Three GEMMs' worth of work per step would be 6 N F C; the demo does two (no input gradient).
  const double gflop = 4.0 * o.samples * o.features * o.classes * (o.steps + 1) * 1e-9;
  std::printf("%d steps in %.2f s (%.1f GFLOP/s in the GEMMs, %d CPU threads)\n", o.steps, seconds,
              gflop / seconds, kiln::num_threads());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"kiln-demo: a softmax classifier trained with kiln's tensor core"};
  app.add_option("--device", o.device, "cpu, gpu or gpu:N")->capture_default_str();
  kiln::add_number_flag(app, "--samples", o.samples, "training samples", {.least = 1})
      ->capture_default_str();
  kiln::add_number_flag(app, "--steps", o.steps, "full-batch gradient steps", {.least = 1})
      ->capture_default_str();
  kiln::add_number_flag(app, "--lr", o.lr, "learning rate", {.least = 0, .least_open = true})
      ->capture_default_str();
  kiln::add_number_flag(app, "--threads", o.threads, "CPU threads (0: all cores)",
                        {.least = 0, .note = "0: all cores"})
      ->capture_default_str();
  kiln::add_number_flag(app, "--seed", o.seed, "random seed")->capture_default_str();
  if (const auto status = kiln::parse_command_line(app, argc, argv, "kiln-demo")) return *status;
  try {
    return run(o);
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "kiln-demo: %s\n", e.what());
    return 1;
  }
}
