// The preset builders of models/presets.h.
#include "kiln/models/presets.h"

#include "kiln/core/error.h"
#include "kiln/layers/activations.h"
#include "kiln/layers/batch_norm2d.h"
#include "kiln/layers/conv2d.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/flatten.h"
#include "kiln/layers/linear.h"
#include "kiln/layers/pool2d.h"

namespace kiln {

std::vector<std::int64_t> article_widths() { return {784, 1024, 1024, 1024, 1024, 10}; }

std::shared_ptr<Sequential> mlp(const std::vector<std::int64_t>& widths, Generator& gen,
                                const std::atomic<bool>* stop) {
  KILN_CHECK(widths.size() >= 2, "an MLP needs at least an input and an output width, found {}",
             widths.size());
  auto net = std::make_shared<Sequential>();
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    net->emplace<Linear>(widths[i], widths[i + 1], gen);
    if (i + 2 < widths.size()) net->emplace<ReLU>();
    if (stop != nullptr && stop->load())
      throw Interrupted(fmt::format("stopped while building an MLP: {} of {} layers built", i + 1,
                                    widths.size() - 1),
                        "the model's build");
  }
  return net;
}

std::shared_ptr<Sequential> lenet5(std::int32_t classes, Generator& gen) {
  auto net = std::make_shared<Sequential>();
  net->emplace<Conv2d>(1, 6, 5, gen, Conv2dOptions{.stride = 1, .padding = 2})
      .emplace<ReLU>()
      .emplace<MaxPool2d>(2)
      .emplace<Conv2d>(6, 16, 5, gen)
      .emplace<ReLU>()
      .emplace<MaxPool2d>(2)
      .emplace<Flatten>()
      .emplace<Linear>(16 * 5 * 5, 120, gen)
      .emplace<ReLU>()
      .emplace<Linear>(120, 84, gen)
      .emplace<ReLU>()
      .emplace<Linear>(84, classes, gen);
  return net;
}

// The convolutions have no bias: the batch norm after each would cancel it.
std::shared_ptr<Sequential> cnn(std::int32_t classes, Generator& gen) {
  constexpr float kDropout = 0.3f;
  const Conv2dOptions same{.stride = 1, .padding = 1};
  auto net = std::make_shared<Sequential>();
  net->emplace<Conv2d>(1, 32, 3, gen, same, /*bias=*/false)
      .emplace<BatchNorm2d>(32)
      .emplace<ReLU>()
      .emplace<MaxPool2d>(2)
      .emplace<Conv2d>(32, 64, 3, gen, same, /*bias=*/false)
      .emplace<BatchNorm2d>(64)
      .emplace<ReLU>()
      .emplace<MaxPool2d>(2)
      .emplace<Flatten>()
      .emplace<Linear>(64 * 7 * 7, 128, gen)
      .emplace<ReLU>()
      // Its own Philox key, so the masks are a stream apart from the initial weights'.
      .emplace<Dropout>(kDropout, gen.seed() + 1)
      .emplace<Linear>(128, classes, gen);
  return net;
}

}  // namespace kiln
