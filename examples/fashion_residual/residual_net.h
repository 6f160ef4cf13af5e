// The model both programs share: a small residual MLP for 28x28 images, built from kiln's layers
// the way a user builds one — no preset. Flatten, Linear 784 -> 128 + ReLU, two residual blocks
// (x + ReLU(Linear(x))), and a Linear to the 10 classes.
#pragma once

#include <memory>

#include <kiln/kiln.h>
#include <kiln/spec.h>

inline std::shared_ptr<kiln::Sequential> residual_net(kiln::Generator& gen) {
  auto net = std::make_shared<kiln::Sequential>();
  net->emplace<kiln::Flatten>();
  net->emplace<kiln::Linear>(784, 128, gen).emplace<kiln::ReLU>();
  for (int block = 0; block < 2; ++block) {
    auto body = std::make_shared<kiln::Sequential>();
    body->emplace<kiln::Linear>(128, 128, gen).emplace<kiln::ReLU>();
    net->emplace<kiln::Residual>(body);
  }
  net->emplace<kiln::Linear>(128, 10, gen);
  return net;
}

// Fashion-MNIST from Debian's dataset-fashion-mnist: a share of the training images (fast) and
// the whole test set.
inline kiln::DataSplits fashion_mnist(std::int64_t train_samples) {
  return kiln::open_data("fashion-mnist", {.samples = train_samples, .seed = 1});
}

// The fraction of `data` whose predicted class is its label, by Module::predict (evaluation mode,
// a result the caller owns).
inline double accuracy(kiln::Module& net, const std::shared_ptr<const kiln::Dataset>& data) {
  kiln::DataLoader loader(data, {.batch_size = 500, .shuffle = false});
  std::int64_t correct = 0, seen = 0;
  for (const kiln::Batch& batch : loader) {
    const kiln::Tensor logits = net.predict(batch.x);
    kiln::Tensor predicted = kiln::Tensor::empty({batch.x.size(0)}, kiln::DType::i32);
    kiln::argmax(logits, 1, predicted);
    const std::vector<std::int32_t> p = predicted.to_vector<std::int32_t>(),
                                    y = batch.y.to_vector<std::int32_t>();
    for (std::size_t i = 0; i < p.size(); ++i) correct += p[i] == y[i];
    seen += static_cast<std::int64_t>(p.size());
  }
  return static_cast<double>(correct) / static_cast<double>(seen);
}
