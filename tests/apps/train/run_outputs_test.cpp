// train()'s run outputs: --tensorboard makes an event file, --report a page whose settings and
// advice are in train's flags, and a folder that is a file is refused in flag words before any
// data is read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "apps/train/train_options.h"
#include "kiln/core/error.h"
#include "tests/support/train_testing.h"

namespace {

std::string text_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST(TrainRunOutputs, TensorBoardAndReportFoldersGetTheirFiles) {
  kiln::TrainAppOptions o = kiln::testing::small_article_run("mlp:784-16-10", 256, 64, 2);
  o.tensorboard_dir = kiln::testing::fresh_checkpoint_dir("outputs_tensorboard");
  o.tensorboard_histograms = 1;
  o.report_dir = kiln::testing::fresh_checkpoint_dir("outputs_report") + "/nested";
  std::ostringstream out;
  kiln::train(o, out);
  int event_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(o.tensorboard_dir))
    event_files += entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0;
  EXPECT_EQ(event_files, 1);
  o.tensorboard_dir.clear();
  try {
    kiln::train(o, out);
    ADD_FAILURE() << "histograms without a folder were accepted";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--tensorboard-histograms 1 needs --tensorboard DIR"),
              std::string::npos)
        << e.what();
  }
  const std::string page = text_of(o.report_dir + "/report.html");
  EXPECT_NE(page.find("kiln train: mlp:784-16-10 on article"), std::string::npos);
  EXPECT_NE(page.find("<tr><th>--lr</th><td><code>0.05</code></td></tr>"), std::string::npos)
      << page;
  EXPECT_NE(page.find("finished: 2 epochs of 2"), std::string::npos);
}

TEST(TrainRunOutputs, AFolderThatIsAFileIsRefusedInFlagWords) {
  kiln::TrainAppOptions o = kiln::testing::small_article_run("mlp:784-16-10", 256, 64, 1);
  o.report_dir = kiln::testing::fresh_checkpoint_dir("outputs_file");
  std::ofstream(o.report_dir) << "a file";
  std::ostringstream out;
  try {
    kiln::train(o, out);
    FAIL() << "a file as --report folder was accepted";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("the --report folder '" + o.report_dir + "' is a file"),
              std::string::npos)
        << e.what();
  }
}
