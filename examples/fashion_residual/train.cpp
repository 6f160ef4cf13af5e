// train_residual DIR: trains residual_net on 12,000 Fashion-MNIST images for two epochs through
// kiln::Trainer, with a checkpoint in DIR after each epoch, printing the per-stage table and the
// diagnosis; then, as a second run would, builds a fresh model, resumes it from DIR and trains
// a third epoch; then predicts the test set. Exits 1 unless the resumed run continued at epoch 3
// and its test accuracy reaches 80 %.
#include <cstdio>
#include <iostream>

#include "residual_net.h"

namespace {

struct Run {
  kiln::Generator gen;
  std::shared_ptr<kiln::Sequential> net = residual_net(gen);
  kiln::Sgd optimizer{net->parameters(), 0.05f, {.momentum = 0.9f}};
  kiln::CrossEntropyLoss loss;
  explicit Run(std::uint64_t seed) : gen(seed) {}
};

}  // namespace

int main(int argc, char** argv) {
  kiln::prefer_passive_openmp_waiting(argv);  // first: spinning OpenMP threads slow a shared CPU
  if (argc != 2) {
    std::fprintf(stderr, "usage: train_residual CHECKPOINT_DIR\n");
    return 2;
  }
  try {
    const kiln::DataSplits data = fashion_mnist(12000);
    kiln::DataLoader train(data.train,
                           {.batch_size = 128, .shuffle = true, .seed = 1, .num_workers = 2});
    kiln::DataLoader test(data.test, {.batch_size = 500, .shuffle = false});
    const kiln::TrainerOptions options{.checkpoint_dir = argv[1], .out = &std::cout};

    {  // the first run ends here, releasing the checkpoint folder's lock for the second
      Run first(7);
      std::cout << first.net->summary({1, 28, 28});
      kiln::Trainer trainer(*first.net, first.optimizer, first.loss, options);
      const kiln::FitResult fitted = trainer.fit(train, 2, &test);
      std::printf("bottleneck: %s\n",
                  std::string(kiln::bottleneck_name(fitted.diagnosis.bottleneck)).c_str());
    }

    Run second(99);  // other initial weights: all that matters must come from the checkpoint
    kiln::Trainer resumed(*second.net, second.optimizer, second.loss, options);
    if (!resumed.resume() || resumed.state().epoch != 2) {
      std::fprintf(stderr, "train_residual: no checkpoint of epoch 2 in %s\n", argv[1]);
      return 1;
    }
    const kiln::FitResult third = resumed.fit(train, 3, &test);
    if (third.epochs.size() != 1 || third.epochs[0].epoch != 3) {
      std::fprintf(stderr, "train_residual: resuming did not continue with epoch 3\n");
      return 1;
    }
    const double acc = accuracy(*second.net, data.test);
    std::printf("train_residual: test accuracy after 3 epochs (resumed after 2): %.2f %%\n",
                100.0 * acc);
    if (acc < 0.80) {
      std::fprintf(stderr, "train_residual: accuracy %.2f %% is under 80 %%\n", 100.0 * acc);
      return 1;
    }
    return 0;
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "train_residual: %s\n", e.what());
    return 1;
  }
}
