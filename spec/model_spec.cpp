// Model specs read: a preset name or "mlp:..." checked against the data, then built by the
// preset builders of models/presets.h.
#include "kiln/spec/model_spec.h"

#include <charconv>
#include <limits>

#include "kiln/core/checked_math.h"
#include "kiln/core/error.h"
#include "kiln/models/gpt.h"
#include "kiln/models/memory_estimate.h"
#include "kiln/models/presets.h"
#include "kiln/spec/spec_options.h"

namespace kiln {

namespace {

constexpr const char* kKnownModels =
    "article, lenet5, cnn, mlp:IN-HIDDEN-...-OUT (e.g. mlp:784-512-256-10) or "
    "gpt:LAYERS-HEADS-WIDTH-CONTEXT[:vocab=N][:dropout=P] (e.g. gpt:4-4-128-64) or "
    "gpt2[:dropout=P] "
    "(GPT-2 small: 12 layers, 12 heads, width 768, context 1024, vocabulary 50257 padded to "
    "50304)";

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
               "model '{}': '{}' is not a positive layer width; expected {}", spec, piece,
               kKnownModels);
    widths.push_back(w);
    start = end + 1;
  }
  KILN_CHECK(widths.size() >= 2,
             "model '{}' needs at least an input and an output width; expected {}", spec,
             kKnownModels);
  return widths;
}

}  // namespace

std::vector<std::int64_t> mlp_widths(const std::string& spec) {
  if (spec == "article") return article_widths();
  KILN_CHECK(spec.rfind("mlp:", 0) == 0, "model '{}' is not an MLP; expected {}", spec,
             kKnownModels);
  return parse_widths(spec, std::string_view(spec).substr(4));
}

bool is_gpt_spec(const std::string& spec) {
  return spec == "gpt2" || spec.rfind("gpt2:", 0) == 0 || spec.rfind("gpt:", 0) == 0;
}

namespace {

// A number of an option of a GPT spec, or an error naming it.
template <typename T> T option_number(const std::string& spec, const SpecOption& option) {
  T value{};
  const std::string& text = *option.value;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  KILN_CHECK(ec == std::errc() && ptr == text.data() + text.size(),
             "model '{}': :{} is not a number", spec, option.text);
  return value;
}

// The :vocab=N and :dropout=P options of a GPT spec, peeled off `shape`.
void read_gpt_options(const std::string& spec, std::string& shape, GptConfig& c) {
  for (const SpecOption& option : peel_spec_options(shape, {})) {
    if (option.key == "dropout") {
      c.dropout = option_number<float>(spec, option);
      KILN_CHECK(c.dropout >= 0.0f && c.dropout < 1.0f,
                 "model '{}': :dropout={} is not a probability in [0, 1)", spec, *option.value);
      continue;
    }
    KILN_CHECK(option.key == "vocab" && shape != "gpt2",
               "model '{}': a GPT spec takes the options :vocab=N (its vocabulary; not for gpt2, "
               "whose vocabulary is GPT-2's) and :dropout=P, not ':{}'",
               spec, option.text);
    c.vocabulary = option_number<std::int64_t>(spec, option);
    KILN_CHECK(c.vocabulary > 0 && c.vocabulary <= std::numeric_limits<std::int32_t>::max(),
               "model '{}': :vocab={} is not a token count from 1 to 2^31 - 1", spec,
               *option.value);
  }
}

}  // namespace

GptConfig gpt_config(const std::string& spec) {
  KILN_CHECK(is_gpt_spec(spec), "model '{}' is not a GPT; expected {}", spec, kKnownModels);
  GptConfig c;
  c.vocabulary = 0;  // the data's, unless the spec gives one: build_model sets it
  std::string shape = spec;
  read_gpt_options(spec, shape, c);
  if (shape == "gpt2") {  // GPT-2 small, as llm.c trains it: its vocabulary padded to 50304
    c.layers = 12, c.heads = 12, c.width = 768, c.context = 1024;
    c.vocabulary = 50257, c.pad_vocabulary = true;
    return c;
  }
  KILN_CHECK(shape.rfind("gpt:", 0) == 0, "model '{}' is not a GPT; expected {}", spec,
             kKnownModels);
  shape.erase(0, 4);
  constexpr const char* kParts[] = {"layer count", "head count", "width", "context"};
  std::int64_t v[4] = {};
  std::size_t start = 0, parts = 0;
  for (; start <= shape.size(); ++parts) {
    const std::size_t end = std::min(shape.find('-', start), shape.size());
    if (parts < 4) {
      const auto piece = std::string_view(shape).substr(start, end - start);
      const auto [ptr, ec] = std::from_chars(piece.data(), piece.data() + piece.size(), v[parts]);
      KILN_CHECK(ec == std::errc() && ptr == piece.data() + piece.size() && v[parts] > 0,
                 "model '{}': its {} (number {} of gpt:LAYERS-HEADS-WIDTH-CONTEXT) is '{}', not a "
                 "positive whole number{}",
                 spec, kParts[parts], parts + 1, piece,
                 parts == 3 ? " (the longest window of tokens the model reads)" : "");
    }
    start = end + 1;
  }
  KILN_CHECK(parts == 4,
             "model '{}': a GPT spec is gpt:LAYERS-HEADS-WIDTH-CONTEXT, four numbers, found {}",
             spec, parts);
  c.layers = v[0], c.heads = v[1], c.width = v[2], c.context = v[3];
  KILN_CHECK(c.width % c.heads == 0,
             "model '{}': the width {} must be a multiple of the {} heads; change one of them",
             spec, c.width, c.heads);
  return c;
}

GptConfig gpt_config(const std::string& spec, std::int64_t data_vocabulary) {
  GptConfig c = gpt_config(spec);
  KILN_CHECK(data_vocabulary > 0, "model '{}' needs a vocabulary of at least one token, found {}",
             spec, data_vocabulary);
  if (c.vocabulary == 0) {
    c.vocabulary = data_vocabulary;
    return c;
  }
  KILN_CHECK(data_vocabulary <= c.vocabulary,
             "model '{}' has a vocabulary of {} tokens but the data's has {} (ids up to {}); give "
             "the model a vocabulary of at least {} (gpt:...:vocab={}) or data of its vocabulary",
             spec, c.vocabulary, data_vocabulary, data_vocabulary - 1, data_vocabulary,
             data_vocabulary);
  return c;
}

std::int64_t model_context(const std::string& spec) {
  return is_gpt_spec(spec) ? gpt_config(spec).context : 0;
}

namespace {

// The GPT of `spec` for the data: its windows at most the context, its vocabulary the spec's or
// the classes.
GptConfig gpt_config_for_data(const std::string& spec, const Shape& sample_shape,
                              std::int32_t classes) {
  GptConfig c = gpt_config(spec, classes);
  KILN_CHECK(sample_shape.rank() == 1 && sample_shape[0] >= 1 && sample_shape[0] <= c.context,
             "model '{}' takes windows of at most {} token ids (its context) but each sample of "
             "the data is {}; use a context of at least {} or windows of at most {}",
             spec, c.context, sample_shape.str(), sample_shape.numel(), c.context);
  return c;
}

}  // namespace

Model build_model(const std::string& spec, const Shape& sample_shape, std::int32_t classes,
                  Generator& gen, const std::atomic<bool>* stop) {
  Model model{spec, nullptr, Shape{sample_shape.numel()}};
  if (is_gpt_spec(spec)) {
    GptConfig config = gpt_config_for_data(spec, sample_shape, classes);
    config.dropout_seed = gen.seed() + 1;  // the masks differ with the run's seed, as cnn's do
    model.net = std::make_shared<Gpt>(config, gen, stop);
    return model;
  }
  if (spec == "lenet5" || spec == "cnn") {
    check_image_preset(spec, sample_shape, classes);
    model.input_shape = sample_shape;
    model.net = spec == "lenet5" ? lenet5(classes, gen) : cnn(classes, gen);
    return model;
  }
  KILN_CHECK(spec == "article" || spec.rfind("mlp:", 0) == 0, "unknown model '{}': expected {}",
             spec, kKnownModels);
  const std::vector<std::int64_t> widths = mlp_widths(spec);
  const std::int64_t features = sample_shape.numel();
  KILN_CHECK(
      widths.front() == features,
      "model '{}' takes {} inputs but each sample of the data has {} ({}); use a model whose "
      "first width is {}",
      spec, widths.front(), features, sample_shape.str(), features);
  KILN_CHECK(
      widths.back() == classes,
      "model '{}' has {} outputs but the data needs {} (one per class, or per target value); use "
      "a model whose last width is {}",
      spec, widths.back(), classes, classes);
  model.net = mlp(widths, gen, stop);
  return model;
}

namespace {

// checked_mul, or an error naming the MLP layer whose size passes int64.
std::int64_t layer_product(std::int64_t a, std::int64_t b, const std::string& spec,
                           std::size_t layer, const std::vector<std::int64_t>& widths) {
  const auto product = checked_mul(a, b);
  KILN_CHECK(product.has_value(),
             "model '{}': layer {} ({} -> {}) is larger than an int64 can count (2^63 - 1); use "
             "smaller widths",
             spec, layer, widths[layer], widths[layer + 1]);
  return *product;
}

// An MLP's parameters and activations from its widths, as estimate_training_memory would count
// the built Sequential (Linear, ReLU, ..., Linear): two tensors per layer output.
MemoryEstimate mlp_memory(const std::string& spec, std::int64_t batch, int state_tensors) {
  const std::vector<std::int64_t> w = mlp_widths(spec);
  constexpr std::int64_t kFloat = 4;
  std::int64_t weights = 0;
  // The input's gradient, then each layer's outputs.
  std::int64_t activations =
      layer_product(layer_product(batch, w.front(), spec, 0, w), kFloat, spec, 0, w);
  for (std::size_t i = 0; i + 1 < w.size(); ++i) {
    const std::int64_t layer = layer_product(w[i], w[i + 1], spec, i, w);
    weights = saturating_add(weights, saturating_add(layer, w[i + 1]));
    const std::int64_t outputs = i + 2 < w.size() ? 4 : 2;  // a hidden layer's ReLU has two more
    activations = saturating_add(
        activations,
        layer_product(layer_product(batch, w[i + 1], spec, i, w), outputs * kFloat, spec, i, w));
  }
  MemoryEstimate e;
  e.parameters = layer_product(weights, kFloat, spec, w.size() - 2, w);
  e.gradients = e.parameters;
  e.optimizer_state =
      checked_mul(e.parameters, state_tensors).value_or(std::numeric_limits<std::int64_t>::max());
  e.activations = activations;
  return e;
}

}  // namespace

MemoryEstimate estimate_model_memory(const std::string& spec, const Shape& sample_shape,
                                     std::int32_t classes, std::int64_t batch_size,
                                     int optimizer_state_tensors, Device device) {
  KILN_CHECK(batch_size >= 1, "estimate_model_memory: batch_size must be at least 1, found {}",
             batch_size);
  if (spec == "lenet5" || spec == "cnn") {  // small fixed presets: built, which is quick
    Generator scratch(0);
    Model model = build_model(spec, sample_shape, classes, scratch);
    std::vector<std::int64_t> dims{batch_size};
    dims.insert(dims.end(), model.input_shape.dims().begin(), model.input_shape.dims().end());
    return estimate_training_memory(*model.net, Shape(std::move(dims)), optimizer_state_tensors);
  }
  if (is_gpt_spec(spec))  // counted from its shape: every layer, none built
    return estimate_gpt_training_memory(gpt_config_for_data(spec, sample_shape, classes),
                                        Shape{batch_size, sample_shape.numel()},
                                        optimizer_state_tensors, device);
  if (spec != "article" && spec.rfind("mlp:", 0) != 0) return {};  // build_model names the mistake
  return mlp_memory(spec, batch_size, optimizer_state_tensors);
}

void check_model_fits(const std::string& spec, const Shape& sample_shape, std::int32_t classes,
                      std::int64_t batch_size, int optimizer_state_tensors, Device device) {
  const MemoryEstimate e = estimate_model_memory(spec, sample_shape, classes, batch_size,
                                                 optimizer_state_tensors, device);
  check_memory_fits(e, e.total(), available_memory(device), device,
                    fmt::format("model '{}' with batches of {}", spec, batch_size),
                    fmt::format("use a smaller model ({}) or batch ({})", Setting::run_model,
                                Setting::run_batch_size));
}

Sequential& Model::sequential() const {
  auto* s = dynamic_cast<Sequential*>(net.get());
  KILN_CHECK(s != nullptr, "model '{}' is not a Sequential of layers", spec);
  return *s;
}

Tensor Model::as_input(const Tensor& batch) const {
  std::vector<std::int64_t> dims{batch.size(0)};
  dims.insert(dims.end(), input_shape.dims().begin(), input_shape.dims().end());
  return batch.view(Shape(std::move(dims)));
}

}  // namespace kiln
