// open_data: from a data spec to train and test splits, with the usual input normalisation.
#include "kiln/spec/data_spec.h"

#include <fmt/ranges.h>

#include <charconv>

#include <filesystem>
#include "kiln/core/error.h"
#include "kiln/core/host_memory.h"

#include "kiln/data/article_dataset.h"
#include "kiln/data/csv_dataset.h"
#include "kiln/data/idx_dataset.h"
#include "kiln/data/image_folder_dataset.h"
#include "kiln/data/npy_dataset.h"
#include "kiln/data/subset_dataset.h"
#include "kiln/data/transformed_dataset.h"
#include "kiln/spec/spec_options.h"
#include "kiln/spec/token_data_spec.h"

namespace kiln {

namespace {

constexpr const char* kForms =
    "fashion-mnist[:FOLDER], article, csv:PATH[:label=COLUMN][:target=class|float], "
    "npy:FEATURES[,LABELS], images:DIR or tokens:PATH[:chars|:u16][:vocab=N][:context=T]";
// Fashion-MNIST's pixel mean and standard deviation over the training set (pixels in [0, 1]).
constexpr float kFashionMean = 0.2860f, kFashionStd = 0.3530f;

// DataSpecOptions::samples N: N samples spread evenly over the set (at i * size / N), not its first
// N, so that a file or folder sorted by class still gives every class (an image folder lists class
// 0 first).
std::shared_ptr<const Dataset> spread(std::shared_ptr<const Dataset> data, std::int64_t samples) {
  if (samples <= 0 || samples == data->size()) return data;
  KILN_CHECK(samples <= data->size(), "{} {} is more than the {} samples of {}", Setting::samples,
             samples, data->size(), data->describe());
  std::vector<std::int64_t> indices(static_cast<std::size_t>(samples));
  for (std::int64_t i = 0; i < samples; ++i)
    indices[static_cast<std::size_t>(i)] = i * data->size() / samples;
  return std::make_shared<SubsetDataset>(std::move(data), std::move(indices));
}

std::shared_ptr<const Dataset> normalized(std::shared_ptr<const Dataset> data, float mean,
                                          float stddev) {
  std::vector<std::shared_ptr<const Transform>> transforms{
      std::make_shared<Normalize>(std::vector<float>{mean}, std::vector<float>{stddev})};
  return std::make_shared<TransformedDataset>(std::move(data), std::move(transforms));
}

DataSplits fashion_mnist_splits(const std::string& folder, const DataSpecOptions& o) {
  auto train = normalized(fashion_mnist(Split::train, folder), kFashionMean, kFashionStd);
  auto test = normalized(fashion_mnist(Split::test, folder), kFashionMean, kFashionStd);
  return {spread(std::move(train), o.samples), std::move(test), true};
}

// The article set: the test split is fresh samples of the same classes, past the train range.
DataSplits article_splits(const DataSpecOptions& o) {
  ArticleOptions options;
  if (o.samples > 0) options.size = o.samples;
  // Generated, so any size parses; but each epoch's order holds 24 bytes per sample.
  const auto most = static_cast<std::int64_t>(host_memory_bytes() / 32);
  KILN_CHECK(most == 0 || options.size <= most,
             "{} {} for the article set: at most {} fit in this machine's memory (each "
             "epoch's sample order takes 24 bytes per sample)",
             Setting::samples, options.size, most);
  options.seed = o.seed;
  const std::int64_t train_size = options.size;
  const std::int64_t test_size = std::max<std::int64_t>(1, train_size / 8);
  options.size = train_size + test_size;
  auto all = std::make_shared<ArticleDataset>(options);
  return {std::make_shared<SubsetDataset>(all, 0, train_size),
          std::make_shared<SubsetDataset>(all, train_size, test_size), true};
}

// A source without a test split of its own: test_share of it is held out (none when the test
// samples come from test_data, which open_data adds).
DataSplits held_out(std::shared_ptr<const Dataset> all, const DataSpecOptions& o) {
  if (!o.test_data.empty()) return {spread(std::move(all), o.samples), nullptr};
  HeldOut split = hold_out_share(std::move(all), o.test_share.value_or(kDefaultTestShare));
  return {spread(std::move(split.train), o.samples), std::move(split.test)};
}

struct CsvSource {
  std::string path;
  CsvOptions options;
};

// csv:PATH[:label=COLUMN][:target=class|float] — options peeled off the end, so that the path
// itself may hold ':'.
CsvSource csv_source(std::string argument) {
  CsvOptions options;
  for (const SpecOption& option : peel_spec_options(argument, {})) {
    const std::string& key = option.key;
    const std::string& value = *option.value;
    if (key == "label") {
      KILN_CHECK(!value.empty(), "{} csv:...:label= needs a column name or 0-based index",
                 Setting::data_spec);
      int index = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), index);
      if (ec == std::errc() && end == value.data() + value.size())
        options.label_index = index;
      else
        options.label_column = value;
    } else if (key == "target") {
      KILN_CHECK(value == "class" || value == "float",
                 "{} csv:...:target={}: expected target=class (integer labels) or "
                 "target=float (regression)",
                 Setting::data_spec, value);
      options.float_target = value == "float";
    } else {
      KILN_THROW(
          "{} csv:...:{}: unknown option '{}'; csv takes label=COLUMN (a header name or "
          "0-based index) and target=class|float",
          Setting::data_spec, option.text, key);
    }
  }
  KILN_CHECK(!argument.empty(), "{} csv:PATH needs a file", Setting::data_spec);
  return {argument, options};
}

DataSplits csv_splits(const std::string& argument, const DataSpecOptions& o) {
  CsvSource source = csv_source(argument);
  return held_out(std::make_shared<CsvDataset>(source.path, std::move(source.options)), o);
}

DataSplits open_source(const std::string& spec, const DataSpecOptions& options);

// DataSpecOptions::test_data: the test source must give samples and targets the model trained for.
std::shared_ptr<const Dataset> test_source(const DataSplits& main, const DataSpecOptions& o) {
  DataSpecOptions t;
  t.seed = o.seed;
  t.test_share = 0.0;  // all of a source without its own test split
  const DataSplits opened = open_source(o.test_data, t);
  std::shared_ptr<const Dataset> test = opened.test ? opened.test : opened.train;
  const Dataset& train = *main.train;
  KILN_CHECK(test->sample_shape() == train.sample_shape(),
             "{} {} has samples of shape {}, but the training data has {}: both need one shape",
             Setting::test_data, test->describe(), test->sample_shape().str(),
             train.sample_shape().str());
  KILN_CHECK(test->has_class_labels() == train.has_class_labels() &&
                 test->target_shape() == train.target_shape() &&
                 test->num_classes() <= train.num_classes(),
             "{} {} has {}, but the training data {} has {}: both need the same kind of "
             "target (and no more classes)",
             Setting::test_data, test->describe(), describe_targets(*test), train.describe(),
             describe_targets(train));
  return test;
}

// "train" or "test" when it is the one sub-folder of `dir`, else "".
std::string only_split_folder(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> folders;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error))
    if (entry.is_directory()) folders.push_back(entry.path().filename().string());
  if (folders.size() != 1 || (folders[0] != "train" && folders[0] != "test")) return "";
  return folders[0];
}

// images:DIR — DIR/train and DIR/test when both exist (as kiln-export-images writes them), else
// DIR itself (or DIR/train or DIR/test when that is its only folder) with test_share of its
// images held out.
DataSplits image_splits(const std::string& dir, const DataSpecOptions& o) {
  namespace fs = std::filesystem;
  KILN_CHECK(!dir.empty(), "{} images:DIR needs a folder", Setting::data_spec);
  if (fs::is_directory(dir + "/train") && fs::is_directory(dir + "/test")) {
    auto train = std::make_shared<ImageFolderDataset>(dir + "/train");
    auto test = std::make_shared<ImageFolderDataset>(dir + "/test");
    // A label is the position of its class folder: one folder missing shifts every label after it.
    KILN_CHECK(train->class_names() == test->class_names(),
               "{}/train has the classes {} but {}/test has {}: both need the same class folders",
               dir, fmt::join(train->class_names(), ", "), dir,
               fmt::join(test->class_names(), ", "));
    KILN_CHECK(train->sample_shape() == test->sample_shape(),
               "{}/train holds images of {} but {}/test of {}: both need one size", dir,
               train->sample_shape().str(), dir, test->sample_shape().str());
    return {spread(std::move(train), o.samples), std::move(test), true};
  }
  // A folder holding only train/ (or only test/), as an export of one split writes it: its
  // images are that folder's, not one class named "train".
  if (const std::string split = only_split_folder(dir); !split.empty())
    return held_out(std::make_shared<ImageFolderDataset>(dir + "/" + split), o);
  return held_out(std::make_shared<ImageFolderDataset>(dir), o);
}

// npy:FEATURES[,LABELS]: the features file, then the labels file if there is one.
std::vector<std::string> npy_files(const std::string& argument) {
  const auto comma = argument.find(',');
  if (comma == std::string::npos) return {argument};
  return {argument.substr(0, comma), argument.substr(comma + 1)};
}

// npy:FEATURES[,LABELS] — labels from a second file, or the last column of a 2-D features array.
DataSplits npy_splits(const std::string& argument, const DataSpecOptions& o) {
  KILN_CHECK(!argument.empty(), "{} npy:FEATURES[,LABELS] needs a file", Setting::data_spec);
  const std::vector<std::string> files = npy_files(argument);
  NpyOptions options;
  if (files.size() == 2) options.labels_path = files[1];
  return held_out(std::make_shared<NpyDataset>(files[0], options), o);
}

DataSplits open_source(const std::string& spec, const DataSpecOptions& options) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  const std::string argument = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (kind == "fashion-mnist") return fashion_mnist_splits(argument, options);
  if (kind == "article") {
    KILN_CHECK(argument.empty(), "{} article takes no argument (use {}), found '{}'",
               Setting::data_spec, SettingUsage{Setting::samples}, spec);
    return article_splits(options);
  }
  if (kind == "csv") return csv_splits(argument, options);
  if (kind == "npy") return npy_splits(argument, options);
  if (kind == "images") return image_splits(argument, options);
  if (kind == "tokens") return token_splits(argument, options);
  KILN_THROW("unknown data '{}': expected {}", spec, kForms);
}

}  // namespace

DataSplits open_data(const std::string& spec, const DataSpecOptions& options) {
  if (options.test_share)
    KILN_CHECK(*options.test_share >= 0.0 && *options.test_share < 1.0,
               "{} must be in [0, 1) (0: no test split), found {}", Setting::test_share,
               *options.test_share);
  KILN_CHECK(
      !(options.test_share && !options.test_data.empty()),
      "{} {} beside {} {}: the test samples come from {}, so nothing is held out and {} would "
      "be ignored; give one of the two",
      Setting::test_share, options.test_share.value_or(0.0), Setting::test_data, options.test_data,
      Setting::test_data, Setting::test_share);
  DataSplits splits = open_source(spec, options);
  KILN_CHECK(!(splits.own_test_split && options.test_share),
             "{} {}: {} {} has a test split of its own, so nothing of it is held out; drop {} (or "
             "give the test samples with {})",
             Setting::test_share, options.test_share.value_or(0.0), Setting::data_spec, spec,
             Setting::test_share, Setting::test_data);
  // tokens: reads its test_data itself, with the training file's vocabulary.
  if (!options.test_data.empty() && !splits.vocabulary) splits.test = test_source(splits, options);
  return splits;
}

std::vector<std::string> data_spec_files(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  const std::string argument = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (kind == "csv" && !argument.empty()) return {csv_source(argument).path};
  if (kind == "npy" && !argument.empty()) return npy_files(argument);
  if (kind == "tokens" && !argument.empty()) return {parse_token_source(argument).path};
  return {};
}

}  // namespace kiln
