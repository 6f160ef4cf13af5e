// Hostile input, round 4, end to end: what the apps were found to do with the new surfaces, each
// now a refusal or one clear line. Numeric flags of every app end in train's one line (the flag,
// the value, the range in words), never a 309-digit number or CLI11's two lines; then gpt: specs,
// a GPT larger than memory (refused before any layer), an MLP on token windows, --steps 0, a
// resume with other settings, a stop signal during a long build and kiln-doctor's --json.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/apps/app_testing.h"
#include "tests/apps/child_process.h"
#include "tests/data/file_testing.h"

namespace fs = std::filesystem;
using kiln::testing::expect_one_line_error;
using kiln::testing::generate;
using kiln::testing::kSmallRun;
using kiln::testing::Outcome;
using kiln::testing::run;
using kiln::testing::train;

namespace {

// A text of a few words over a small alphabet, `extra` appended.
std::string write_words(const fs::path& path, const std::string& extra = "") {
  return kiln::testing::write_text(path, kiln::testing::lcg_words(9, 2000, 5) + extra);
}

// A range error: one line, the flag and the value as given, no number past 40 digits.
void expect_range_error(const Outcome& o, const std::string& program, const std::string& needle) {
  expect_one_line_error(o, program, needle);
  EXPECT_LT(o.err.size(), 300u) << o.err;
  EXPECT_EQ(o.err.find("179769313486231570814527"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("Run with --help"), std::string::npos) << o.err;
}

}  // namespace

TEST(Round4Flags, KilnGeneratesNumericFlagsSayTheFlagTheValueAndTheRange) {
  const std::string base = "--checkpoint /nonexistent ";
  expect_range_error(generate(base + "--tokens -1"), "kiln-generate",
                     "--tokens must be >= 0, found -1");
  expect_range_error(generate(base + "--temperature -1"), "kiln-generate",
                     "--temperature must be >= 0 (0: the most likely token), found -1");
  expect_range_error(generate(base + "--top-k -1"), "kiln-generate",
                     "--top-k must be >= 0 (0: all), found -1");
  expect_range_error(generate(base + "--tokens 99999999999999999999"), "kiln-generate",
                     "--tokens must be a whole number in [0, 9223372036854775807], found "
                     "99999999999999999999");
  expect_range_error(generate(base + "--tokens 2.5"), "kiln-generate",
                     "--tokens must be a whole number >= 0, found '2.5'");
  expect_range_error(generate(base + "--temperature inf"), "kiln-generate",
                     "--temperature must be a number >= 0 (0: the most likely token), found inf");
  expect_range_error(generate(base + "--temperature 1e999"), "kiln-generate",
                     "--temperature must be >= 0 (0: the most likely token) (at most 3.40282e+38 "
                     "in size), found 1e999");
  expect_range_error(generate(base + "--seed -1"), "kiln-generate", "--seed must be");
  expect_range_error(generate(base + "--no-such-flag"), "kiln-generate", "(see --help)");
}

TEST(Round4Flags, EveryAppsNumericFlagsSpeakAsTrainsDo) {
  expect_range_error(train("--epochs 99999999999"), "train",
                     "--epochs must be in [1, 2147483647], found 99999999999");
  expect_range_error(train("--epochs 0"), "train", "--epochs must be at least 1, found 0");
  expect_range_error(train("--lr abc"), "train", "--lr must be a positive number, found 'abc'");
  expect_range_error(train("--lr 0"), "train", "--lr must be positive, found 0");
  expect_range_error(train("--batch-size -5"), "train",
                     "--batch-size must be at least 1, found -5");
  expect_range_error(train("--seed -1"), "train", "--seed must be >= 0, found -1");
  expect_range_error(train("--seed 18446744073709551616"), "train",
                     "--seed must be a whole number of at most 18446744073709551615, found "
                     "18446744073709551616");
  expect_range_error(train("--bucket-mb 0"), "train", "--bucket-mb must be in (0, 1.04858e+06]");
  expect_range_error(train("--clip-grad-norm -1"), "train",
                     "--clip-grad-norm must be >= 0 (0: no clipping), found -1");
  expect_range_error(train("--momentum 1"), "train", "--momentum must be in [0, 1), found 1");
  expect_range_error(train("--gpus 0,-2"), "train", "--gpus must be >= 0, found -2");
  expect_range_error(kiln::testing::bench("--samples 0"), "bench",
                     "--samples must be at least 1, found 0");
  expect_range_error(kiln::testing::bench("--threads 2 -1"), "bench",
                     "--threads must be at least 1, found -1");
  expect_range_error(kiln::testing::bench("--workers 3000000000"), "bench",
                     "--workers must be in [0, 2147483647], found 3000000000");
  expect_range_error(run(KILN_EXPORT_IMAGES_BIN, "--out /tmp/x --limit -3"), "kiln-export-images",
                     "--limit must be >= 0 (0: all), found -3");
  expect_range_error(run(KILN_DOCTOR_BIN, "--quick --compare a"), "kiln-doctor", "(see --help)");
}

TEST(Round4Flags, StepsZeroIsRefusedNotTrainedAsTenEpochs) {
  for (const std::string steps : {"0", "-4"}) {
    const Outcome o = train(kSmallRun.substr(0, kSmallRun.find(" --epochs")) + " --steps " + steps);
    expect_range_error(
        o, "train",
        "--steps must be at least 1 (to train by epochs, drop --steps), found " + steps);
    EXPECT_EQ(o.out.find("epoch"), std::string::npos) << o.out;
  }
}

TEST(Round4Gpt, SpecsNameThePartThatIsWrong) {
  const fs::path dir = kiln::testing::fresh_folder("round4_gpt_specs");
  const std::string data =
      " --data tokens:" + write_words(dir / "text.txt") + " --steps 1 --batch-size 2";
  expect_one_line_error(train("--model gpt:1-0-16-16" + data), "train",
                        "its head count (number 2 of");
  expect_one_line_error(train("--model gpt:0-2-16-16" + data), "train",
                        "its layer count (number 1 of");
  expect_one_line_error(train("--model gpt:1-2-0-16" + data), "train", "its width (number 3 of");
  const Outcome context = train("--model gpt:1-2-16-0" + data);
  expect_one_line_error(context, "train", "its context (number 4 of");
  EXPECT_EQ(context.err.find("data"), std::string::npos) << context.err;
}

TEST(Round4Gpt, AGptLargerThanMemoryIsRefusedWithTheEstimatesFigures) {
  const fs::path dir = kiln::testing::fresh_folder("round4_gpt_big");
  const std::string data =
      " --data tokens:" + write_words(dir / "text.txt") + " --steps 1 --batch-size 2";
  for (const std::string model :
       {std::string("gpt:2-4-65536-8"), std::string("gpt:9223372036854775807-1-8-8")}) {
    const auto start = std::chrono::steady_clock::now();
    const Outcome o = train("--model " + model + data);
    expect_one_line_error(o, "train", "model '" + model + "' with batches of 2 needs");
    EXPECT_NE(o.err.find("parameters"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("use a smaller model (--model) or batch (--batch-size)"),
              std::string::npos)
        << o.err;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30)) << model;
  }
}

TEST(Round4Gpt, AnMlpOnTokenWindowsIsNamedAsNotFittingTheData) {
  const fs::path dir = kiln::testing::fresh_folder("round4_mlp_tokens");
  const std::string text = write_words(dir / "text.txt");
  for (const std::string model : {"mlp:16-32-6", "mlp:16-6"}) {
    const Outcome o = train("--model " + model + " --data tokens:" + text +
                            ":chars:context=16 --steps 2 --batch-size 4 --loss cross-entropy");
    expect_one_line_error(o, "train", "a label per position, (16,) of 6 classes");
    EXPECT_NE(o.err.find("whose output per sample is (16, 6)"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("logits must be"), std::string::npos) << o.err;
  }
}

TEST(Round4Gpt, FindBatchSizeWorksWithAGptAndSpeaksInFlags) {
  const fs::path dir = kiln::testing::fresh_folder("round4_find_batch");
  const std::string text = write_words(dir / "text.txt");
  const Outcome found =
      train("--model gpt:1-1-8-8 --data tokens:" + text + " --steps 5 --find-batch-size");
  ASSERT_EQ(found.exit_code, 0) << found.err;
  EXPECT_NE(found.out.find("largest batch that fits"), std::string::npos) << found.out;
  // An MLP has no context: the token windows' length is asked for in flags.
  const Outcome mlp = train("--model mlp:8-6 --data tokens:" + text + " --find-batch-size");
  expect_one_line_error(mlp, "train", "tokens");
  EXPECT_EQ(mlp.err.find("DataSpecOptions"), std::string::npos) << mlp.err;
}

TEST(Round4Resume, OtherClippingDecayGroupsOrTextAreNamedOnResume) {
  const fs::path dir = kiln::testing::fresh_folder("round4_resume");
  const std::string text = write_words(dir / "text.txt", "q");
  const std::string run_args = "--model gpt:1-1-8-8 --batch-size 2 --optimizer adamw --quiet";
  const std::string ckpt = (dir / "ck").string();
  ASSERT_EQ(train(run_args + " --data tokens:" + text +
                  ":chars --clip-grad-norm 0.5 --steps 4 --checkpoint " + ckpt)
                .exit_code,
            0);
  const std::string resume = " --steps 8 --resume --checkpoint " + ckpt;
  expect_one_line_error(
      train(run_args + " --data tokens:" + text + ":chars --clip-grad-norm 1" + resume), "train",
      "--clip-grad-norm 0.5 (this run: 1)");
  expect_one_line_error(
      train(run_args + " --data tokens:" + text +
            ":chars --clip-grad-norm 0.5 --no-weight-decay-groups" + resume),
      "train", "the weight-decay groups (--no-weight-decay-groups) matrices (this run: all)");
  // The same file name, another text: one character differs.
  const std::string changed = write_words(dir / "text.txt", "z");
  expect_one_line_error(
      train(run_args + " --data tokens:" + changed + ":chars --clip-grad-norm 0.5" + resume),
      "train", "only the checkpoint's has 'q' (U+0071); only this run's has 'z' (U+007A)");
}

TEST(Round4Signals, SigtermDuringALongModelBuildEndsItWith143) {
  const fs::path dir = kiln::testing::fresh_folder("round4_build_signal");
  const std::string text = write_words(dir / "text.txt");
  // 100,000 blocks: seconds of building on any machine, a little memory.
  const pid_t pid = kiln::testing::start(
      {KILN_TRAIN_BIN, "--model", "gpt:100000-1-8-8", "--data", "tokens:" + text, "--steps", "1",
       "--batch-size", "2", "--optimizer", "sgd", "--momentum", "0"},
      (dir / "err").string(), (dir / "out").string());
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto sent = std::chrono::steady_clock::now();
  kill(pid, SIGTERM);
  const int status = kiln::testing::wait_for(pid);
  EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::seconds(5));
  EXPECT_EQ(status, 143) << kiln::testing::file_text((dir / "err").string());
  const std::string out = kiln::testing::file_text((dir / "out").string());
  EXPECT_NE(out.find("interrupted by SIGTERM (stopped while building a GPT's blocks"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("nothing was trained or saved"), std::string::npos) << out;
}

TEST(Round4Doctor, JsonIntoAFolderFailsBeforeMeasuring) {
  const fs::path dir = kiln::testing::fresh_folder("round4_doctor_json");
  fs::create_directories(dir / "folder");
  const auto start = std::chrono::steady_clock::now();
  const Outcome o = run(KILN_DOCTOR_BIN, "--quick --no-gpu --json " + (dir / "folder").string());
  expect_one_line_error(o, "kiln-doctor", (dir / "folder").string());
  EXPECT_EQ(o.out, "") << "no report was printed";
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  const Outcome missing = run(KILN_DOCTOR_BIN, "--quick --no-gpu --json /nonexistent/kiln/d.json");
  expect_one_line_error(missing, "kiln-doctor", "/nonexistent/kiln/d.json");
  EXPECT_EQ(missing.out, "");
}

TEST(Round4Tokens, ATextTooLargeForItsCharacterIdsIsOneLine) {
  const fs::path dir = kiln::testing::fresh_folder("round4_sparse_chars");
  const std::string path = (dir / "sparse.txt").string();
  kiln::testing::write_text(path, "");
  fs::resize_file(path, 1024ull << 20);  // 1 GiB of zeros, no disk
  // Under a 2.5 GB address-space limit (as a container's), its 2 GiB of 2-byte ids cannot be
  // allocated beside the file's mapping.
  const Outcome o = run("ulimit -v 2500000; " KILN_TRAIN_BIN,
                        "--model gpt:1-1-8-8 --data tokens:" + path + ":chars --steps 1");
  expect_one_line_error(o, "train",
                        "token file " + path + " read as characters (1073741824 bytes)");
  EXPECT_NE(o.err.find("read it as bytes (tokens:PATH)"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("bad_alloc"), std::string::npos) << o.err;
  fs::remove(path);
}
