// Every file kiln writes is opened through OutputFile: a symbolic link where kiln writes (a
// checkpoint folder's lock, a piece, a temporary, a log) is refused and the file it points to is
// left as it was; a FIFO, a device or a folder is refused without blocking; an output that is
// one of the run's inputs is refused.
#include "kiln/core/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "kiln/io/durable_file.h"
#include "kiln/io/folder_lock.h"
#include "kiln/training/json_log.h"
#include "tests/data/file_testing.h"

namespace fs = std::filesystem;
using kiln::testing::error_message;
using kiln::testing::fresh_folder;
using kiln::testing::write_text;

namespace {
std::string text_of(const fs::path& path) { return kiln::read_whole_file(path.string()); }
}  // namespace

TEST(FolderLock, ALockThatIsASymbolicLinkIsRefusedAndItsTargetKept) {
  const fs::path dir = fresh_folder("lock_symlink");
  const std::string precious = write_text(dir / "precious.txt", "the user's notes\n");
  fs::create_directories(dir / "ckpt");
  fs::create_symlink(precious, dir / "ckpt" / "lock");
  const std::string message =
      error_message([&] { kiln::FolderLock((dir / "ckpt").string(), "checkpoint folder"); });
  EXPECT_CONTAINS(message, "the lock file '" + (dir / "ckpt" / "lock").string() +
                               "' is a symbolic link; kiln does not write through links");
  EXPECT_CONTAINS(message, "checkpoint folder '" + (dir / "ckpt").string() + "'");
  EXPECT_EQ(text_of(precious), "the user's notes\n");
  fs::remove(dir / "ckpt" / "lock");
  fs::create_symlink(dir / "nowhere", dir / "ckpt" / "lock");  // dangling: not created through
  EXPECT_CONTAINS(
      error_message([&] { kiln::FolderLock((dir / "ckpt").string(), "checkpoint folder"); }),
      "is a symbolic link");
  EXPECT_FALSE(fs::exists(dir / "nowhere"));
}

TEST(FolderLock, ALockThatIsNotARegularFileIsRefused) {
  const fs::path dir = fresh_folder("lock_kinds");
  fs::create_directories(dir / "folder" / "lock");
  EXPECT_CONTAINS(
      error_message([&] { kiln::FolderLock((dir / "folder").string(), "checkpoint folder"); }),
      "cannot open checkpoint folder");
  fs::create_directories(dir / "fifo");
  ASSERT_EQ(::mkfifo((dir / "fifo" / "lock").c_str(), 0644), 0);
  EXPECT_CONTAINS(
      error_message([&] { kiln::FolderLock((dir / "fifo").string(), "checkpoint folder"); }),
      "is a FIFO; kiln writes only regular files");
  fs::create_directories(dir / "plain");
  const kiln::FolderLock fine((dir / "plain").string(), "checkpoint folder");
  EXPECT_TRUE(fs::is_regular_file(dir / "plain" / "lock"));
}

TEST(OutputFile, WritesNoFileThroughALinkAndOpensNoSpecialFile) {
  const fs::path dir = fresh_folder("output_kinds");
  const std::string precious = write_text(dir / "precious.txt", "keep me");
  fs::create_symlink(precious, dir / "piece");
  EXPECT_CONTAINS(error_message([&] { kiln::write_file_durably((dir / "piece").string(), "x"); }),
                  "is a symbolic link");
  // A temporary planted as a link is replaced, not followed; the file is written.
  fs::create_symlink(precious, dir / "weights.tmp");
  kiln::write_file_atomically((dir / "weights").string(), "new");
  EXPECT_EQ(text_of(dir / "weights"), "new");
  EXPECT_EQ(text_of(precious), "keep me");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);  // no reader: must not block
  EXPECT_CONTAINS(error_message([&] { kiln::write_file_durably((dir / "fifo").string(), "x"); }),
                  "is a FIFO or a device with no reader");
  EXPECT_CONTAINS(error_message([&] { kiln::OutputFile("/dev/null", O_WRONLY, "the"); }),
                  "'/dev/null' is a device; kiln writes only regular files");
  EXPECT_CONTAINS(error_message([&] { kiln::OutputFile(dir.string(), O_WRONLY, "the"); }),
                  "cannot open the file");
}

TEST(OutputFile, TheJsonLogIsNotAppendedThroughALink) {
  const fs::path dir = fresh_folder("output_log_link");
  const std::string data = write_text(dir / "train.csv", "label,x\n1,2\n");
  fs::create_symlink(data, dir / "log.jsonl");
  EXPECT_CONTAINS(
      error_message([&] { kiln::JsonLog((dir / "log.jsonl").string()); }),
      "TrainerOptions::log_json file '" + (dir / "log.jsonl").string() + "' is a symbolic link");
  EXPECT_EQ(text_of(data), "label,x\n1,2\n");
}

TEST(OutputFile, AnOutputThatIsAnInputIsRefusedWhateverItsPath) {
  const fs::path dir = fresh_folder("output_is_input");
  const std::string data = write_text(dir / "train.csv", "label,x\n1,2\n");
  fs::create_hard_link(data, dir / "alias.csv");
  EXPECT_CONTAINS(
      error_message([&] {
        kiln::check_output_is_no_input((dir / "alias.csv").string(), "--log-json", {data});
      }),
      "--log-json file '" + (dir / "alias.csv").string() + "' is the input '" + data + "'");
  const std::string dotted = (dir / "." / "train.csv").string();
  EXPECT_NE(error_message([&] { kiln::check_output_is_no_input(dotted, "--log-json", {data}); }),
            "");
  EXPECT_EQ(error_message([&] {
              kiln::check_output_is_no_input((dir / "new.jsonl").string(), "--log-json", {data});
            }),
            "");
  write_text(dir / "other.jsonl", "");
  EXPECT_EQ(error_message([&] {
              kiln::check_output_is_no_input((dir / "other.jsonl").string(), "--log-json", {data});
            }),
            "");
}
