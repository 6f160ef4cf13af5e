// tensor_dataset: the README's library example. A user's own data — points on the three arms of
// a spiral, labelled by arm, in plain vectors — and a model of their own, trained through
// kiln::Trainer, which prints each epoch's stage table and ends with its diagnosis. Exits 1
// unless the test points come out at least 95 % right (99.8 % here).
#include <cmath>
#include <cstdint>
#include <iostream>
#include <vector>

#include <kiln/kiln.h>

namespace {

// n points (x, y) on three arms of a spiral, with a little noise, and each point's arm.
void spiral(int n, std::uint32_t seed, std::vector<float>& points,
            std::vector<std::int32_t>& arms) {
  std::uint32_t state = seed;
  auto noise = [&state] {  // a small LCG: the example needs no generator of kiln's
    state = state * 1664525u + 1013904223u;
    return (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 0.04f;
  };
  for (int i = 0; i < n; ++i) {
    const float r = static_cast<float>(i / 3 + 1) / static_cast<float>(n / 3 + 1);
    const float t = 4.0f * r + 2.0944f * static_cast<float>(i % 3);
    points.push_back(r * std::cos(t) + noise());
    points.push_back(r * std::sin(t) + noise());
    arms.push_back(i % 3);
  }
}

}  // namespace

int main(int, char** argv) {
  kiln::prefer_passive_openmp_waiting(argv);  // first: spinning OpenMP threads slow a shared CPU
  try {
    std::vector<float> x, test_x;
    std::vector<std::int32_t> y, test_y;
    spiral(3000, 1, x, y);
    spiral(600, 2, test_x, test_y);

    // The README's 15 lines.
    auto data = std::make_shared<kiln::TensorDataset>(x, kiln::Shape{2}, y);
    auto test_data = std::make_shared<kiln::TensorDataset>(test_x, kiln::Shape{2}, test_y);
    kiln::DataLoader train(data, {.batch_size = 64, .shuffle = true});
    kiln::DataLoader test(test_data, {.batch_size = 600});
    kiln::Generator gen(1);
    kiln::Sequential net;
    net.emplace<kiln::Linear>(2, 64, gen).emplace<kiln::ReLU>();
    net.emplace<kiln::Linear>(64, 64, gen).emplace<kiln::ReLU>();
    net.emplace<kiln::Linear>(64, 3, gen);
    kiln::Adam optimizer(net.parameters(), 0.01f);
    kiln::CrossEntropyLoss loss;
    kiln::Trainer trainer(net, optimizer, loss, {.out = &std::cout});
    kiln::FitResult result = trainer.fit(train, 20, &test);  // stage tables, then the diagnosis
    const double accuracy = result.epochs.back().test_accuracy;

    std::cout << "tensor_dataset: test accuracy " << 100.0 * accuracy << " %\n";
    return accuracy >= 0.95 ? 0 : 1;
  } catch (const kiln::Error& e) {
    std::cerr << "tensor_dataset: " << e.what() << "\n";
    return 1;
  }
}
