// TensorBoardLogger (training/tensorboard_logger.h), checked with its real consumer: TensorBoard's
// own event reader (the `tensorboard` package in the test venv) reads the file back, and every
// scalar's tag, step and value is what kiln logged. Without the venv it skips, visibly.
#include <gtest/gtest.h>

#include <filesystem>
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
#include "kiln/training/epoch_scalars.h"
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

std::shared_ptr<kiln::TensorDataset> line_points(int n) {
  std::vector<float> x;
  std::vector<std::int32_t> y;
  for (int i = 0; i < n; ++i) {
    x.push_back(static_cast<float>(i - n / 2) / 7.0f);
    y.push_back(i < n / 2 ? 0 : 1);
  }
  return std::make_shared<kiln::TensorDataset>(x, kiln::Shape{1}, y);
}

std::string fresh_dir(const std::string& name) {
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
  kiln::DataLoader train{line_points(40), {.batch_size = 8}};
  kiln::DataLoader test{line_points(13), {.batch_size = 8, .shuffle = false}};
  const std::string dir = fresh_dir("read_back");
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

TEST(TensorBoardLogger, AFolderThatIsAFileIsRefusedBeforeAnyWork) {
  const std::string file = fresh_dir("a_file");
  std::ofstream(file) << "not a folder";
  const std::string message =
      kiln::testing::error_message([&] { kiln::TensorBoardLogger logger(file); });
  EXPECT_NE(message.find("TensorBoardLogger's folder '" + file + "' is a file"), std::string::npos)
      << message;
}
