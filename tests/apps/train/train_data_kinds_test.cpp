// train() on every kind of data --data accepts, at tiny sizes: each run must learn something.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "apps/train/train_options.h"
#include "kiln/data/image_io.h"
#include "tests/data/file_testing.h"

namespace {

namespace fs = std::filesystem;

using kiln::testing::fresh_folder;

// Three separable classes in four features: class c has feature c raised.
std::vector<std::vector<float>> samples(int n, std::vector<int>& labels) {
  std::mt19937 engine(5);
  std::normal_distribution<float> noise(0.0f, 0.3f);
  std::vector<std::vector<float>> rows;
  for (int i = 0; i < n; ++i) {
    const int c = i % 3;
    labels.push_back(c);
    std::vector<float> x(4);
    for (int f = 0; f < 4; ++f) x[f] = (f == c ? 2.0f : 0.0f) + noise(engine);
    rows.push_back(x);
  }
  return rows;
}

double test_accuracy(const std::string& data, const std::string& model, std::int64_t batch = 16) {
  kiln::TrainAppOptions o;
  o.data = data;
  o.model = model;
  o.epochs = 3;
  o.batch_size = batch;
  o.lr = 0.1f;
  o.workers = 1;
  o.quiet = true;
  std::ostringstream out;
  return kiln::train(o, out).epochs.back().test_accuracy;
}

}  // namespace

TEST(TrainDataKinds, LearnsFromACsvFile) {
  const std::string path = (fresh_folder("train_kinds_csv") / "data.csv").string();
  std::vector<int> labels;
  const auto rows = samples(300, labels);
  std::ofstream csv(path);
  csv << "label,a,b,c,d\n";
  for (std::size_t i = 0; i < rows.size(); ++i)
    csv << labels[i] << "," << rows[i][0] << "," << rows[i][1] << "," << rows[i][2] << ","
        << rows[i][3] << "\n";
  csv.close();
  EXPECT_GT(test_accuracy("csv:" + path, "mlp:4-16-3"), 0.9);
}

TEST(TrainDataKinds, LearnsFromNumpyFiles) {
  const std::string dir = fresh_folder("train_kinds_npy").string();
  std::vector<int> labels;
  const auto rows = samples(300, labels);
  auto write_npy = [](const std::string& path, const std::string& descr, const std::string& shape,
                      const void* data, std::size_t bytes) {
    std::string header =
        "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    header.append(64 - (10 + header.size() + 1) % 64, ' ');
    header += '\n';
    std::ofstream out(path, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    const std::uint16_t length = static_cast<std::uint16_t>(header.size());
    out.write(reinterpret_cast<const char*>(&length), 2);
    out << header;
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  };
  std::vector<float> features;
  for (const auto& r : rows) features.insert(features.end(), r.begin(), r.end());
  std::vector<std::int64_t> y(labels.begin(), labels.end());
  write_npy(dir + "/x.npy", "<f4", "(300, 4)", features.data(), features.size() * 4);
  write_npy(dir + "/y.npy", "<i8", "(300,)", y.data(), y.size() * 8);
  EXPECT_GT(test_accuracy("npy:" + dir + "/x.npy," + dir + "/y.npy", "mlp:4-16-3"), 0.9);
}

TEST(TrainDataKinds, LearnsFromAnImageFolder) {
  const std::string dir = fresh_folder("train_kinds_images").string();
  // Two classes of 8x8 gray images: a bright top half, or a bright bottom half.
  for (int c = 0; c < 2; ++c) {
    fs::create_directories(dir + "/class" + std::to_string(c));
    for (int i = 0; i < 60; ++i) {
      kiln::Image8 image;
      image.height = 8;
      image.width = 8;
      image.channels = 1;
      image.pixels.assign(64, static_cast<std::uint8_t>(20 + i % 7));
      for (int p = (c == 0 ? 0 : 32); p < (c == 0 ? 32 : 64); ++p)
        image.pixels[p] = static_cast<std::uint8_t>(200 + i % 13);
      kiln::write_png(dir + "/class" + std::to_string(c) + "/" + std::to_string(i) + ".png", image);
    }
  }
  EXPECT_GT(test_accuracy("images:" + dir, "mlp:64-16-2"), 0.9);
}

TEST(TrainDataKinds, LearnsFashionMnistAndTheArticleSet) {
  kiln::TrainAppOptions o;
  o.data = "fashion-mnist";
  o.model = "mlp:784-64-10";
  o.samples = 2000;
  o.epochs = 2;
  o.quiet = true;
  std::ostringstream out;
  EXPECT_GT(kiln::train(o, out).epochs.back().test_accuracy, 0.6);
  o.data = "article";
  EXPECT_GT(kiln::train(o, out).epochs.back().test_accuracy, 0.5);
}

// --steps, --eval-interval, --eval-iters: a run counted in steps crosses epochs (300 samples
// at batch 16 are 19 batches) and reports after every interval and the last step.
TEST(TrainDataKinds, CountsARunInStepsWithAnEvaluationEveryInterval) {
  const std::string path = (fresh_folder("train_kinds_steps") / "data.csv").string();
  std::vector<int> labels;
  const auto rows = samples(300, labels);
  std::ofstream csv(path);
  csv << "label,a,b,c,d\n";
  for (std::size_t i = 0; i < rows.size(); ++i)
    csv << labels[i] << "," << rows[i][0] << "," << rows[i][1] << "," << rows[i][2] << ","
        << rows[i][3] << "\n";
  csv.close();
  kiln::TrainAppOptions o;
  o.data = "csv:" + path;
  o.model = "mlp:4-16-3";
  o.batch_size = 16;
  o.lr = 0.1f;
  o.workers = 1;
  o.steps = 45;
  o.eval_interval = 20;
  o.eval_iters = 1;
  std::ostringstream out;
  const kiln::TrainResult result = kiln::train(o, out);
  ASSERT_EQ(result.epochs.size(), 3u);
  EXPECT_EQ(result.epochs[0].step, 20);
  EXPECT_EQ(result.epochs[1].step, 40);
  EXPECT_EQ(result.epochs[2].step, 45);
  EXPECT_EQ(result.epochs[2].batches, 5);
  EXPECT_FALSE(result.epochs[2].perplexity);  // class labels: accuracy, no perplexity
  EXPECT_GT(result.epochs[2].test_accuracy, 0.8);
  EXPECT_NE(out.str().find("step 45/45"), std::string::npos) << out.str();
  o.steps = 0;  // the evaluation settings belong to a run counted in steps
  EXPECT_NE(kiln::testing::error_message([&] { kiln::train(o, out); }).find("give --steps N"),
            std::string::npos);
}
