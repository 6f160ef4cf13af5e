// train given hostile files, end to end: what it reads is a regular file (never /dev/zero until
// memory runs out), what it writes is never written through a link or into one of its inputs.
// Each case is one line on stderr and exit status 1, before any epoch.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "tests/apps/app_testing.h"
#include "tests/data/file_testing.h"

namespace fs = std::filesystem;
using kiln::testing::expect_one_line_error;
using kiln::testing::kSmallRun;
using kiln::testing::Outcome;
using kiln::testing::read_file;
using kiln::testing::train;

namespace {
// A small classification table: 64 rows, label in the first column, 784 features.
std::string write_csv(const fs::path& path) {
  std::string text;
  for (int row = 0; row < 64; ++row) {
    text += std::to_string(row % 10);
    for (int f = 0; f < 784; ++f) text += f == row % 784 ? ",1" : ",0";
    text += "\n";
  }
  return kiln::testing::write_text(path, text);
}
}  // namespace

TEST(TrainFiles, LogJsonPointedAtTheTrainingDataIsRefusedAndTheDataKept) {
  const fs::path dir = kiln::testing::fresh_folder("apps_log_is_input");
  const std::string csv = write_csv(dir / "train.csv");
  const std::string before = read_file(csv);
  const std::string args =
      "--model mlp:784-16-10 --data csv:" + csv + " --batch-size 16 --epochs 1";
  const Outcome o = train(args + " --log-json " + (dir / "." / "train.csv").string());
  expect_one_line_error(o, "train", "is the input '" + csv + "'");
  EXPECT_EQ(read_file(csv), before);
  ASSERT_EQ(train(args + " --quiet --log-json " + (dir / "log.jsonl").string()).exit_code, 0);
}

TEST(TrainFiles, ACheckpointLockThatIsASymbolicLinkIsRefusedAndItsTargetKept) {
  const fs::path dir = kiln::testing::fresh_folder("apps_lock_link");
  const std::string precious =
      kiln::testing::write_text(dir / "precious.txt", "the user's notes\n");
  fs::create_directories(dir / "ckpt");
  fs::create_symlink(precious, dir / "ckpt" / "lock");
  const Outcome o = train(kSmallRun + " --checkpoint " + (dir / "ckpt").string());
  expect_one_line_error(
      o, "train", "the lock file '" + (dir / "ckpt" / "lock").string() + "' is a symbolic link");
  EXPECT_EQ(read_file(precious), "the user's notes\n");
}

TEST(TrainFiles, LogJsonThatIsASymbolicLinkIsRefused) {
  const fs::path dir = kiln::testing::fresh_folder("apps_log_link");
  const std::string precious = kiln::testing::write_text(dir / "precious.txt", "keep\n");
  fs::create_symlink(precious, dir / "log.jsonl");
  expect_one_line_error(
      train(kSmallRun + " --log-json " + (dir / "log.jsonl").string()), "train",
      "--log-json file '" + (dir / "log.jsonl").string() + "' is a symbolic link");
  EXPECT_EQ(read_file(precious), "keep\n");
}

TEST(TrainFiles, EndlessAndSpecialFilesAreRefusedByNameNotReadUntilMemoryRunsOut) {
  const fs::path dir = kiln::testing::fresh_folder("apps_special_files");
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  expect_one_line_error(train("--data csv:/dev/zero --epochs 1"), "train",
                        "CSV file /dev/zero is a device, not a regular file");
  expect_one_line_error(train("--data npy:/dev/zero --epochs 1"), "train",
                        ".npy file /dev/zero is a device, not a regular file");
  expect_one_line_error(train("--data csv:" + fifo + " --epochs 1"), "train",
                        "CSV file " + fifo + " is a FIFO, not a regular file");
  expect_one_line_error(train(kSmallRun + " --init /dev/zero"), "train",
                        "/dev/zero is a device, not a regular file");
  expect_one_line_error(train(kSmallRun + " --init " + dir.string()), "train",
                        dir.string() + " is a folder; a file was expected");
}

TEST(TrainEnvironment, ABadKilnVariableFailsAtStartUpNamingIt) {
  for (const auto& [setting, expected] :
       {std::pair{"KILN_CPU_COMPUTE=garbage",
                  "KILN_CPU_COMPUTE='garbage': expected onednn or reference"},
        std::pair{"KILN_RELU_EPILOGUE=garbage",
                  "KILN_RELU_EPILOGUE='garbage': expected fused or separate"},
        std::pair{"KILN_LOG_LEVEL=garbage", "KILN_LOG_LEVEL='garbage': expected trace"},
        std::pair{"KILN_INJECT_FAULT=garbage", "KILN_INJECT_FAULT must read fail:RANK:STEP"}}) {
    // --data names a file that does not exist: the variable is checked before any data is read.
    const Outcome o = kiln::testing::run(std::string("env ") + setting + " " + KILN_TRAIN_BIN,
                                         "--data csv:/nonexistent/kiln.csv --epochs 1");
    expect_one_line_error(o, "train", expected);
  }
}

TEST(TrainFiles, FileSystemErrorsNameTheCheckpointFolderAndPath) {
  const fs::path dir = kiln::testing::fresh_folder("apps_latest_loop");
  fs::create_symlink("latest", dir / "ckpt-000001");  // latest -> ckpt-000001 -> latest
  fs::create_symlink("ckpt-000001", dir / "latest");
  expect_one_line_error(train(kSmallRun + " --checkpoint " + dir.string() + " --resume"), "train",
                        "checkpoint folder '" + dir.string() + "': cannot use '" +
                            (dir / "ckpt-000001").string() +
                            "': Too many levels of symbolic links");
  const std::string long_name = (dir / std::string(300, 'a')).string();
  expect_one_line_error(train(kSmallRun + " --checkpoint " + long_name), "train",
                        "checkpoint folder '" + long_name + "': cannot use");
  expect_one_line_error(train(kSmallRun + " --checkpoint " + long_name), "train",
                        "File name too long");
}

TEST(TrainFiles, AFileFlagThatWouldBeIgnoredIsRefused) {
  const fs::path dir = kiln::testing::fresh_folder("apps_ignored_flags");
  expect_one_line_error(
      train(kSmallRun + " --checkpoint " + (dir / "ckpt").string() + " --resume --init " +
            (dir / "w.safetensors").string()),
      "train",
      "with --resume: the run continues from the checkpoint's weights, so --init would be ignored");
  expect_one_line_error(
      train(kSmallRun + " --test-share 0.2 --test-data article"), "train",
      "--test-share 0.2 beside --test-data article: the test samples come from --test-data");
}
