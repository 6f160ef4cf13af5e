// TensorBoardLogger (training/tensorboard_logger.h), checked with its real consumer: TensorBoard's
// own event reader (the `tensorboard` package in the test venv) reads the file back, and every
// scalar's tag, step and value is what kiln logged, and each histogram's count, range and sum.
// Without the venv it skips, visibly.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "kiln/data/data_loader.h"
#include "kiln/data/tensor_dataset.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/models/presets.h"
#include "kiln/optim/sgd.h"
#include "kiln/report/epoch_scalars.h"
#include "kiln/training/tensorboard_logger.h"
#include "kiln/training/trainer.h"
#include "tests/support/error_testing.h"
#include "tests/support/test_python.h"

namespace {

// TensorBoard's reader: the first event's file_version, then "tag step value" per scalar.
constexpr const char* kReadBack = R"(
import sys
from tensorboard.backend.event_processing import event_accumulator, event_file_loader
first = next(iter(event_file_loader.EventFileLoader(sys.argv[2]).Load()))
print("file_version", first.file_version)
acc = event_accumulator.EventAccumulator(sys.argv[1], size_guidance={event_accumulator.SCALARS: 0})
acc.Reload()
for tag in acc.Tags()["scalars"]:
    for e in acc.Scalars(tag):
        print(tag, e.step, repr(e.value))
)";

std::shared_ptr<kiln::TensorDataset> logged_line_points(int n) {
  std::vector<float> x;
  std::vector<std::int32_t> y;
  for (int i = 0; i < n; ++i) {
    x.push_back(static_cast<float>(i - n / 2) / 7.0f);
    y.push_back(i < n / 2 ? 0 : 1);
  }
  return std::make_shared<kiln::TensorDataset>(x, kiln::Shape{1}, y);
}

std::string fresh_log_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "kiln_tensorboard_" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace

TEST(TensorBoardLogger, TensorBoardsReaderSeesEveryScalarKilnLoggedAtItsEpoch) {
  KILN_SKIP_WITHOUT_TEST_PYTHON();
  kiln::Generator gen{5};
  const auto net = kiln::mlp({1, 8, 2}, gen);
  kiln::Sgd optimizer(net->parameters(), 0.1f);
  kiln::CrossEntropyLoss loss;
  kiln::DataLoader train{logged_line_points(40), {.batch_size = 8}};
  kiln::DataLoader test{logged_line_points(13), {.batch_size = 8, .shuffle = false}};
  const std::string dir = fresh_log_dir("read_back");
  const auto logger = std::make_shared<kiln::TensorBoardLogger>(dir);
  EXPECT_NE(logger->path().find("/events.out.tfevents."), std::string::npos) << logger->path();
  kiln::Trainer trainer(*net, optimizer, loss);
  trainer.add_observer(logger);
  const kiln::FitResult result = trainer.fit(train, 3, &test);

  std::map<std::tuple<std::string, long long>, double> logged;
  for (const kiln::EpochReport& report : result.epochs)
    for (const kiln::Scalar& scalar : kiln::epoch_scalars(report))
      logged[{scalar.tag, report.epoch}] = static_cast<float>(scalar.value);
  ASSERT_TRUE(logged.count({"loss/test", 3}));
  ASSERT_TRUE(logged.count({"stage_percent/forward", 2}));

  const kiln::testing::PythonRun read =
      kiln::testing::run_python(kReadBack, "'" + dir + "' '" + logger->path() + "'");
  ASSERT_EQ(read.exit_code, 0) << read.out;
  std::istringstream lines(read.out);
  std::string word, version;
  lines >> word >> version;
  EXPECT_EQ(word + " " + version, "file_version brain.Event:2");
  std::map<std::tuple<std::string, long long>, double> read_back;
  std::string tag;
  long long step = 0;
  double value = 0;
  while (lines >> tag >> step >> value) read_back[{tag, step}] = value;
  EXPECT_EQ(read_back, logged) << read.out;
}

// Histograms: "tag step num min max sum bucket_total" per histogram.
constexpr const char* kReadHistograms = R"(
import sys
from tensorboard.backend.event_processing import event_accumulator
acc = event_accumulator.EventAccumulator(sys.argv[1], size_guidance={event_accumulator.HISTOGRAMS: 0})
acc.Reload()
for tag in acc.Tags()["histograms"]:
    for e in acc.Histograms(tag):
        h = e.histogram_value
        print(tag, e.step, int(h.num), repr(h.min), repr(h.max), repr(h.sum), int(sum(h.bucket)))
)";

TEST(TensorBoardLogger, WeightAndGradientHistogramsEveryNEpochsReadBackWithTheirFigures) {
  KILN_SKIP_WITHOUT_TEST_PYTHON();
  kiln::Generator gen{7};
  const auto net = kiln::mlp({1, 8, 2}, gen);
  kiln::Sgd optimizer(net->parameters(), 0.1f);
  kiln::CrossEntropyLoss loss;
  kiln::DataLoader train{logged_line_points(40), {.batch_size = 8}};
  const std::string dir = fresh_log_dir("histograms");
  kiln::Trainer trainer(*net, optimizer, loss);
  trainer.add_observer(std::make_shared<kiln::TensorBoardLogger>(
      dir, kiln::TensorBoardLoggerOptions{.histogram_every = 2, .model = net.get()}));
  trainer.fit(train, 2);  // one histogram event, at step 2: the weights and gradients as they end

  std::map<std::string, std::string> expected;
  const auto figures = [](const std::vector<float>& v) {
    double lo = v.front(), hi = v.front(), sum = 0;
    for (const float x : v) lo = std::min<double>(lo, x), hi = std::max<double>(hi, x), sum += x;
    std::ostringstream line;
    line.precision(17);
    line << "2 " << v.size() << " " << lo << " " << hi << " " << sum << " " << v.size();
    return line.str();
  };
  for (const kiln::Parameter* p : net->parameters()) {
    expected["weights/" + p->name] = figures(p->value.to_vector<float>());
    expected["gradients/" + p->name] = figures(p->grad.to_vector<float>());
  }
  const kiln::testing::PythonRun read = kiln::testing::run_python(kReadHistograms, "'" + dir + "'");
  ASSERT_EQ(read.exit_code, 0) << read.out;
  std::map<std::string, std::string> read_back;
  std::istringstream lines(read.out);
  std::string tag;
  long long step = 0, num = 0, total = 0;
  double lo = 0, hi = 0, sum = 0;
  int histograms = 0;
  while (lines >> tag >> step >> num >> lo >> hi >> sum >> total) {
    ++histograms;
    std::ostringstream line;
    line.precision(17);
    line << step << " " << num << " " << lo << " " << hi << " " << sum << " " << total;
    read_back[tag] = line.str();
  }
  EXPECT_EQ(read_back, expected) << read.out;
  EXPECT_EQ(histograms, 8) << "two layers' weight and bias, and their gradients, at epoch 2 only";
}

TEST(TensorBoardLogger, AFolderThatIsAFileIsRefusedBeforeAnyWork) {
  const std::string file = fresh_log_dir("a_file");
  std::ofstream(file) << "not a folder";
  const std::string message =
      kiln::testing::error_message([&] { kiln::TensorBoardLogger logger(file); });
  EXPECT_NE(message.find("TensorBoardLogger's folder '" + file + "' is a file"), std::string::npos)
      << message;
}
