// Builds the preset models and MLP specs.
#include "kiln/models/model_spec.h"

#include <charconv>

#include "kiln/layers/activations.h"
#include "kiln/layers/batch_norm2d.h"
#include "kiln/layers/conv2d.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/flatten.h"
#include "kiln/layers/linear.h"
#include "kiln/layers/pool2d.h"

namespace kiln {

namespace {

constexpr const char* kKnownModels =
    "article, lenet5, cnn or mlp:IN-HIDDEN-...-OUT (e.g. mlp:784-512-256-10)";

// The presets for 1x28x28 images take nothing else.
void check_image_preset(const std::string& spec, const Shape& sample_shape, std::int32_t classes) {
  KILN_CHECK(sample_shape == (Shape{1, 28, 28}),
             "model '{}' takes 1x28x28 images but each sample of the data is {}; use article or "
             "mlp:... for other data",
             spec, sample_shape.str());
  KILN_CHECK(classes > 0, "model '{}' needs at least one class, found {}", spec, classes);
}

// Two 3x3 convolutions (32 and 64 maps, padding 1) each with batch norm, ReLU and 2x2 max
// pooling, then 64 * 7 * 7 -> 128 -> classes with dropout. The convolutions have no bias: the
// batch norm after each would cancel it.
void add_cnn(Sequential& net, std::int32_t classes, Generator& gen) {
  constexpr float kDropout = 0.3f;
  const Conv2dOptions same{.stride = 1, .padding = 1};
  net.emplace<Conv2d>(1, 32, 3, gen, same, /*bias=*/false)
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
}

std::vector<std::int64_t> parse_widths(const std::string& spec, std::string_view list) {
  std::vector<std::int64_t> widths;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find('-', start), list.size());
    std::int64_t w = 0;
    const auto piece = list.substr(start, end - start);
    auto [ptr, ec] = std::from_chars(piece.data(), piece.data() + piece.size(), w);
    KILN_CHECK(ec == std::errc() && ptr == piece.data() + piece.size() && w > 0,
               "model '{}': '{}' is not a positive layer width; expected {}", spec, piece, kKnownModels);
    widths.push_back(w);
    start = end + 1;
  }
  KILN_CHECK(widths.size() >= 2, "model '{}' needs at least an input and an output width; expected {}",
             spec, kKnownModels);
  return widths;
}

}  // namespace

std::vector<std::int64_t> mlp_widths(const std::string& spec) {
  if (spec == "article") return {784, 1024, 1024, 1024, 1024, 10};
  KILN_CHECK(spec.rfind("mlp:", 0) == 0, "model '{}' is not an MLP; expected {}", spec, kKnownModels);
  return parse_widths(spec, std::string_view(spec).substr(4));
}

Model build_model(const std::string& spec, const Shape& sample_shape, std::int32_t classes,
                  Generator& gen) {
  Model model{spec, std::make_shared<Sequential>(), Shape{sample_shape.numel()}};
  if (spec == "lenet5") {
    // LeNet-5 for 28x28 images (padding 2 in the first convolution stands in for the original's
    // 32x32 input): 6 and 16 5x5 feature maps, 2x2 max pooling, then 400 -> 120 -> 84 -> classes.
    check_image_preset(spec, sample_shape, classes);
    model.input_shape = sample_shape;
    model.net->emplace<Conv2d>(1, 6, 5, gen, Conv2dOptions{.stride = 1, .padding = 2})
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
    return model;
  }
  if (spec == "cnn") {
    check_image_preset(spec, sample_shape, classes);
    model.input_shape = sample_shape;
    add_cnn(*model.net, classes, gen);
    return model;
  }
  KILN_CHECK(spec == "article" || spec.rfind("mlp:", 0) == 0, "unknown model '{}': expected {}", spec,
             kKnownModels);
  const std::vector<std::int64_t> widths = mlp_widths(spec);
  const std::int64_t features = sample_shape.numel();
  KILN_CHECK(widths.front() == features,
             "model '{}' takes {} inputs but each sample of the data has {} ({}); use a model whose "
             "first width is {}",
             spec, widths.front(), features, sample_shape.str(), features);
  KILN_CHECK(
      widths.back() == classes,
      "model '{}' has {} outputs but the data needs {} (one per class, or per target value); use "
      "a model whose last width is {}",
      spec, widths.back(), classes, classes);
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    model.net->emplace<Linear>(widths[i], widths[i + 1], gen);
    if (i + 2 < widths.size()) model.net->emplace<ReLU>();
  }
  return model;
}

Tensor Model::as_input(const Tensor& batch) const {
  std::vector<std::int64_t> dims{batch.size(0)};
  dims.insert(dims.end(), input_shape.dims().begin(), input_shape.dims().end());
  return batch.view(Shape(std::move(dims)));
}

}  // namespace kiln
