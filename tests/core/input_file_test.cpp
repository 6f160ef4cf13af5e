// Every reader of a whole file refuses what is not a regular file by name — /dev/zero (endless),
// a FIFO (would block, then be endless), a folder — instead of reading until memory runs out;
// and reads a regular file within the size it had when opened.
#include "kiln/core/input_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <functional>

#include "kiln/data/csv_dataset.h"
#include "kiln/data/idx_dataset.h"
#include "kiln/data/image_io.h"
#include "kiln/data/npy_dataset.h"
#include "kiln/io/durable_file.h"
#include "kiln/io/safetensors.h"
#include "tests/data/file_testing.h"

namespace fs = std::filesystem;
using kiln::testing::error_message;

TEST(InputFile, ReadsARegularFileWhole) {
  const fs::path dir = kiln::testing::fresh_folder("input_regular");
  const std::string path = kiln::testing::write_text(dir / "a.txt", std::string("a\0b", 3));
  const kiln::InputFile file(path, "text file");
  EXPECT_EQ(file.size(), 3u);
  EXPECT_EQ(file.read_all(), std::string("a\0b", 3));
  EXPECT_EQ(kiln::read_input_file(kiln::testing::write_text(dir / "empty", ""), "text file"), "");
  EXPECT_NE(error_message([&] {
              kiln::InputFile((dir / "nope").string(), "text file");
            }).find("cannot open text file " + (dir / "nope").string() + ": No such file"),
            std::string::npos);
}

TEST(InputFile, EveryReaderRefusesDevicesFifosAndFoldersByName) {
  const fs::path dir = kiln::testing::fresh_folder("input_special");
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const std::string folder = (dir / "folder").string();
  fs::create_directories(folder);
  const std::vector<std::pair<const char*, std::function<void(const std::string&)>>> readers{
      {"CSV", [](const std::string& p) { kiln::CsvDataset{p}; }},
      {".npy", [](const std::string& p) { kiln::NpyDataset{p}; }},
      {"IDX", [](const std::string& p) { kiln::IdxDataset(p, p); }},
      {"image", [](const std::string& p) { kiln::read_image(p, 1); }},
      {"safetensors (--init)", [](const std::string& p) { kiln::load_safetensors(p); }},
      {"state.json and pieces", [](const std::string& p) { kiln::read_whole_file(p); }},
  };
  for (const auto& [reader, read] : readers) {
    const std::string zero = error_message([&] { read("/dev/zero"); });
    EXPECT_NE(zero.find("/dev/zero is a device, not a regular file"), std::string::npos)
        << reader << ": " << zero;
    const std::string pipe = error_message([&] { read(fifo); });
    EXPECT_NE(pipe.find(fifo + " is a FIFO, not a regular file"), std::string::npos)
        << reader << ": " << pipe;
    const std::string dir_message = error_message([&] { read(folder); });
    EXPECT_NE(dir_message.find(folder + " is a folder; a file was expected"), std::string::npos)
        << reader << ": " << dir_message;
  }
}
