// The preset models as C++ builders: the article's MLP (784-1024x4-10), any MLP by its widths,
// LeNet-5 and the cnn for 1x28x28 images. Each returns a Sequential whose parameters are named as
// in PyTorch ("layers.0.weight") and draws its initial weights from `gen` in layer order, so a
// preset built twice from the same seed is the same network. Specs by name: spec/model_spec.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "kiln/core/random.h"
#include "kiln/models/sequential.h"

namespace kiln {

// The article's network: widths 784, 1024, 1024, 1024, 1024, 10.
std::vector<std::int64_t> article_widths();

// Linear layers of these widths (at least two) with a ReLU between each pair. `stop` (may be
// null) is polled after each layer: when set, building ends in kiln::Interrupted.
std::shared_ptr<Sequential> mlp(const std::vector<std::int64_t>& widths, Generator& gen,
                                const std::atomic<bool>* stop = nullptr);

// LeNet-5 for (1, 28, 28) images (padding 2 in the first convolution stands in for the
// original's 32x32 input): 6 and 16 5x5 feature maps, 2x2 max pooling, 400 -> 120 -> 84 -> classes.
std::shared_ptr<Sequential> lenet5(std::int32_t classes, Generator& gen);

// For (1, 28, 28) images: conv3x3 1->32, BatchNorm2d, ReLU, maxpool 2, conv3x3 32->64,
// BatchNorm2d, ReLU, maxpool 2, Linear 3136->128, ReLU, Dropout 0.3, Linear 128->classes (92.5 %
// on Fashion-MNIST's test set with train's defaults, docs/performance.md).
std::shared_ptr<Sequential> cnn(std::int32_t classes, Generator& gen);

}  // namespace kiln
