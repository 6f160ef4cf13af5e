// Model specs read: a preset name or "mlp:..." checked against the data, then built by the
// preset builders of models/presets.h.
#include "kiln/spec/model_spec.h"

#include <charconv>

#include "kiln/core/error.h"
#include "kiln/models/presets.h"

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
  if (spec == "article") return article_widths();
  KILN_CHECK(spec.rfind("mlp:", 0) == 0, "model '{}' is not an MLP; expected {}", spec, kKnownModels);
  return parse_widths(spec, std::string_view(spec).substr(4));
}

Model build_model(const std::string& spec, const Shape& sample_shape, std::int32_t classes,
                  Generator& gen) {
  Model model{spec, nullptr, Shape{sample_shape.numel()}};
  if (spec == "lenet5" || spec == "cnn") {
    check_image_preset(spec, sample_shape, classes);
    model.input_shape = sample_shape;
    model.net = spec == "lenet5" ? lenet5(classes, gen) : cnn(classes, gen);
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
  model.net = mlp(widths, gen);
  return model;
}

Tensor Model::as_input(const Tensor& batch) const {
  std::vector<std::int64_t> dims{batch.size(0)};
  dims.insert(dims.end(), input_shape.dims().begin(), input_shape.dims().end());
  return batch.view(Shape(std::move(dims)));
}

}  // namespace kiln
