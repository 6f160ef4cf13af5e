// predict_residual DIR: loads the weights of the newest checkpoint in DIR (train_residual wrote
// it) into a fresh residual_net and classifies the 10,000 Fashion-MNIST test images. Exits 1
// unless the accuracy reaches 80 % and predict's result is the caller's own (a second call must
// not overwrite the first's).
#include <cmath>
#include <cstdio>

#include "residual_net.h"

int main(int argc, char** argv) {
  kiln::prefer_passive_openmp_waiting(argv);  // first: spinning OpenMP threads slow a shared CPU
  if (argc != 2) {
    std::fprintf(stderr, "usage: predict_residual CHECKPOINT_DIR\n");
    return 2;
  }
  try {
    kiln::Generator gen(12345);
    const std::shared_ptr<kiln::Sequential> net = residual_net(gen);
    kiln::load_checkpoint_weights(argv[1], *net);
    const kiln::DataSplits data = fashion_mnist(0);

    kiln::DataLoader loader(data.test, {.batch_size = 4, .shuffle = false});
    auto it = loader.begin();
    const kiln::Tensor a_in = it->x.clone();
    const kiln::Tensor a = net->predict(a_in);
    const std::vector<float> a_before = a.to_vector<float>();
    ++it;
    net->predict(it->x);
    if (a.to_vector<float>() != a_before) {
      std::fprintf(stderr, "predict_residual: a later predict changed an earlier result\n");
      return 1;
    }

    const double acc = accuracy(*net, data.test);
    std::printf("predict_residual: %s -> test accuracy %.2f %% on %lld images\n", argv[1],
                100.0 * acc, static_cast<long long>(data.test->size()));
    if (acc < 0.80) {
      std::fprintf(stderr, "predict_residual: accuracy %.2f %% is under 80 %%\n", 100.0 * acc);
      return 1;
    }
    return 0;
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "predict_residual: %s\n", e.what());
    return 1;
  }
}
