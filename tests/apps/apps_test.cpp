// End-to-end tests of the train and bench programs as a user runs them: exit status, the one-line
// error message on stderr, and the files bench writes. Small sizes only; the binaries' paths come
// from CMake (tests/apps/CMakeLists.txt).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "kiln/core/device.h"
#include "tests/apps/app_testing.h"
#include "tests/data/file_testing.h"

using kiln::testing::bench;
using kiln::testing::expect_one_line_error;
using kiln::testing::kSmallData;
using kiln::testing::kSmallRun;
using kiln::testing::Outcome;
using kiln::testing::read_file;
using kiln::testing::run;
using kiln::testing::train;

TEST(TrainApp, HelpListsEveryOptionWithItsDefault) {
  const Outcome o = train("--help");
  EXPECT_EQ(o.exit_code, 0);
  for (const char* option :
       {"--device",          "--model",       "--data",      "--samples",    "--epochs",
        "--batch-size",      "--lr",          "--optimizer", "--schedule",   "--workers",
        "--pin-memory",      "--no-shuffle",  "--threads",   "--seed",       "--checkpoint",
        "--resume",          "--init",        "--log-json",  "--quiet",      "--keep-checkpoints",
        "--find-batch-size", "--tune-loader", "--loss",      "--momentum",   "--nesterov",
        "--beta1",           "--beta2",       "--eps",       "--test-share", "--test-data"})
    EXPECT_NE(o.out.find(option), std::string::npos) << option;
  EXPECT_NE(o.out.find("=article"), std::string::npos) << "defaults are shown";
}

TEST(TrainApp, SmallRunPrintsEpochStagesAndDiagnosis) {
  const std::string dir = kiln::testing::fresh_folder("apps_small_run").string();
  const Outcome o = train(kSmallRun + " --log-json " + dir + "/log.jsonl");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("epoch 1/1"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("test loss"), std::string::npos);
  EXPECT_NE(o.out.find("data wait"), std::string::npos);
  EXPECT_NE(o.out.find("backward"), std::string::npos);
  EXPECT_NE(o.out.find("diagnosis:"), std::string::npos);
  EXPECT_NE(read_file(dir + "/log.jsonl").find("\"samples_per_second\""), std::string::npos);
}

TEST(TrainApp, CheckpointThenResumeRunsToTheEnd) {
  const std::string dir = kiln::testing::fresh_folder("apps_resume").string();
  ASSERT_EQ(train(kSmallRun + " --schedule constant --quiet --checkpoint " + dir).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(dir + "/model.safetensors"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/state.json"));
  const Outcome resumed =
      train(std::string(kSmallData) + " --epochs 2 --schedule constant --checkpoint " + dir +
            " --resume");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("resuming from"), std::string::npos) << resumed.out;
  EXPECT_EQ(resumed.out.find("epoch 1/2"), std::string::npos) << "epoch 1 was not trained again";
  EXPECT_NE(resumed.out.find("epoch 2/2"), std::string::npos);
}

TEST(TrainApp, UnknownOptimizerNamesTheChoices) {
  expect_one_line_error(train(kSmallRun + " --optimizer rmsprop"), "train", "adamw");
}

TEST(TrainApp, UnknownDataKindSaysWhatIsAccepted) {
  expect_one_line_error(train("--data parquet:x.parquet --epochs 1"), "train", "csv:");
}

TEST(TrainApp, MissingDataFileIsNamed) {
  expect_one_line_error(train("--data csv:/nonexistent/kiln.csv --epochs 1"), "train",
                        "/nonexistent/kiln.csv");
}

TEST(TrainApp, BadModelSpecIsExplained) {
  expect_one_line_error(train("--model mlp:784-x-10 --data article --samples 64 --epochs 1"),
                        "train", "mlp:");
}

TEST(TrainApp, ResumeWithoutCheckpointFolder) {
  expect_one_line_error(train(kSmallRun + " --resume"), "train", "--checkpoint");
}

TEST(TrainApp, GpuWithoutAUsableGpuFailsClearly) {
  // Every CI and development machine of this project lacks a GPU; on a GPU machine, skip.
  const Outcome o = train(kSmallRun + " --device gpu");
  if (o.exit_code == 0) GTEST_SKIP() << "a GPU is usable here";
  expect_one_line_error(o, "train", "GPU");
  // Without a driver the runtime speaks of an "insufficient" driver; the message says the truth.
  if (!std::filesystem::exists("/proc/driver/nvidia") &&
      kiln::cuda_unavailable_reason().find("built without") == std::string::npos) {
    EXPECT_NE(o.err.find("no NVIDIA driver is loaded"), std::string::npos) << o.err;
  }
}

TEST(TrainApp, PrecisionIsCheckedAndTf32NeedsAGpu) {
  expect_one_line_error(train(kSmallRun + " --precision fp16"), "train",
                        "expected fp32, tf32 or bf16");
  expect_one_line_error(train(kSmallRun + " --precision tf32"), "train", "use --precision fp32");
}

TEST(TrainApp, DivergingLossNamesEpochAndStep) {
  const Outcome o = train(kSmallRun + " --lr 1e30 --optimizer sgd");
  expect_one_line_error(o, "train", "in epoch 1 at step");
}

TEST(TrainApp, UnparsableNumberIsACommandLineError) {
  const Outcome o = train("--epochs ten");
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.err.find("--epochs"), std::string::npos) << o.err;
}

TEST(BenchApp, WritesTheSpeedupTableAsMarkdownCsvSvgAndHtml) {
  const std::string dir = kiln::testing::fresh_folder("apps_bench").string();
  const Outcome o = bench("--cpu-only --threads 1 --samples 512 --batch-size 64 --out " + dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::string md = read_file(dir + "/speedup.md");
  EXPECT_EQ(
      md.rfind("| device | s / epoch (160k samples) | 160 epochs | speedup vs slowest | note |", 0),
      0u)
      << md;
  for (const char* row :
       {"laptop CPU (i7, 4 cores) [article] | 1474.0 | 3 days |", "GTX 1080 Ti [article] | 36.0 |",
        "| CPU, 1 thread (this machine, fp32) |", "scaled from 512 samples"})
    EXPECT_NE(md.find(row), std::string::npos) << row << "\n" << md;
  EXPECT_NE(o.out.find(md), std::string::npos) << "the table printed is the table written";
  const std::string csv = read_file(dir + "/speedup.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5)
      << csv;  // header, 3 article rows, 1 measured
  EXPECT_NE(read_file(dir + "/speedup.svg").find("<svg"), std::string::npos);
  const std::string html = read_file(dir + "/speedup.html");
  EXPECT_NE(html.find(read_file(dir + "/speedup.svg")), std::string::npos)
      << "the page holds the chart inline";
  EXPECT_NE(html.find("<td>CPU, 1 thread (this machine, fp32)</td>"), std::string::npos) << html;
}

TEST(BenchApp, GpuOnlyWithoutAUsableGpuIsAnError) {
  const Outcome o = bench("--device=gpu --samples 512");
  if (o.exit_code == 0) GTEST_SKIP() << "a GPU is usable here";
  expect_one_line_error(o, "bench", "measure the CPU with --device=cpu");
  expect_one_line_error(bench("--gpu-only --samples 512"), "bench", "needs a GPU");
}

TEST(BenchApp, LoaderSweepWithoutImageFolderSaysHowToMakeIt) {
  expect_one_line_error(bench("--loader --images /nonexistent/fmnist"), "bench",
                        "kiln-export-images --out");
}

TEST(BenchApp, LoaderSweepOnASmallImageFolder) {
  const std::string dir = kiln::testing::fresh_folder("apps_images").string();
  ASSERT_EQ(run(KILN_EXPORT_IMAGES_BIN, "--out " + dir + " --limit 256").exit_code, 0);
  const Outcome o =
      bench("--loader --images " + dir +
            " --loader-workers 0 2 --loader-batch-sizes 32 64 --loader-steps 3 --cpu-only");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("epoch s"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("batch 32: best --workers"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("batch 64: best --workers"), std::string::npos) << o.out;
}

TEST(TrainApp, ResumeWithoutACheckpointSaysHowToStartFresh) {
  const std::string dir = kiln::testing::fresh_folder("apps_resume_empty").string();
  expect_one_line_error(
      train(kSmallRun + " --checkpoint " + dir + " --resume"), "train",
      "holds no checkpoint (no latest, no state.json); to start fresh, run without --resume");
  EXPECT_NE(train("--help").out.find("to start fresh"), std::string::npos);
}

TEST(TrainApp, OutOfRangeFlagsAreOneLineErrors) {
  const std::string model = "--model mlp:784-32-10 --data article --epochs 1 ";
  expect_one_line_error(train(model + "--samples -1"), "train", "--samples must be >= 0");
  expect_one_line_error(train(kSmallRun + " --workers 100000"), "train",
                        "--workers must be in [0, 256]");
  expect_one_line_error(train(model + "--samples 36 --batch-size 1000000000000"), "train",
                        "--batch-size 1000000000000 is more than the 36 training samples");
  expect_one_line_error(train(kSmallRun + " --keep-checkpoints 0"), "train",
                        "--keep-checkpoints must be at least 1");
}

TEST(TrainApp, SizesPastInt64AndModelsTooBigForMemoryAreOneLineErrors) {
  const std::string data = " --data article --samples 36 --batch-size 4 --epochs 1";
  // Used to end in SIGSEGV: 2 x 2^62 weights wrapped to a buffer of 0 bytes.
  expect_one_line_error(train("--model mlp:784-2-4611686018427387904-10" + data), "train",
                        "layer 1 (2 -> 4611686018427387904) is larger than an int64 can count");
  // 2 x 400000^2 weights with gradients and momentum: terabytes, refused before any allocation.
  const Outcome big = train("--model mlp:784-400000-400000-10 --momentum 0.9" + data);
  expect_one_line_error(big, "train", "model 'mlp:784-400000-400000-10' with batches of 4 needs");
  EXPECT_NE(big.err.find("use a smaller model (--model) or batch (--batch-size)"),
            std::string::npos)
      << big.err;
  expect_one_line_error(train(kSmallRun + " --threads 100000"), "train",
                        "--threads must be in [0, ");
}

TEST(TrainApp, ABadOutputPathFailsBeforeTheFirstEpoch) {
  const Outcome o = train(kSmallRun + " --log-json /nonexistent/kiln/log.jsonl");
  expect_one_line_error(o, "train", "cannot open --log-json file '/nonexistent/kiln/log.jsonl'");
  EXPECT_EQ(o.out.find("epoch 1/1"), std::string::npos) << "no epoch ran: " << o.out;
  const std::string file = kiln::testing::fresh_folder("apps_ckpt_file").string() + "/plain";
  kiln::testing::write_text(file, "not a folder");
  expect_one_line_error(train(kSmallRun + " --checkpoint " + file), "train",
                        "is a file, not a folder");
}

TEST(BenchApp, AnUnwritableOutFolderFailsBeforeMeasuring) {
  const std::string file = kiln::testing::fresh_folder("apps_bench_out").string() + "/plain";
  kiln::testing::write_text(file, "not a folder");
  const Outcome o = bench("--cpu-only --threads 1 --samples 512 --batch-size 64 --out " + file);
  expect_one_line_error(o, "bench", "cannot create the --out folder '" + file + "'");
  EXPECT_EQ(o.out.find("CPU, 1 thread"), std::string::npos) << "nothing was measured: " << o.out;
}

namespace {

// A regression table with its target in the middle column "y": y = 2a - b + noise, rows from a
// fixed LCG. Returns the path; *variance is the target's variance (what predicting the mean
// would score).
std::string write_regression_csv(const std::string& dir, int rows, double* variance) {
  std::uint64_t state = 12345;
  const auto uniform = [&] {  // in [-1, 1)
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 4503599627370496.0 - 1.0;
  };
  std::string text = "a,y,b\n";
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < rows; ++i) {
    const double a = uniform(), b = uniform(), y = 2 * a - b + 0.05 * uniform();
    text += std::to_string(a) + "," + std::to_string(y) + "," + std::to_string(b) + "\n";
    sum += y;
    sum_sq += y * y;
  }
  *variance = sum_sq / rows - (sum / rows) * (sum / rows);
  return kiln::testing::write_text(std::filesystem::path(dir) / "regression.csv", text);
}

// The figure after `label` ("test loss ") in the last epoch line.
double last_figure(const std::string& out, const std::string& label) {
  const auto at = out.rfind(label);
  return at == std::string::npos ? NAN : std::stod(out.substr(at + label.size()));
}

}  // namespace

TEST(TrainApp, MseOnARegressionCsvDrivesTheLossFarBelowTheTargetVariance) {
  const std::string dir = kiln::testing::fresh_folder("apps_regression").string();
  double variance = 0;
  const std::string path = write_regression_csv(dir, 600, &variance);
  const Outcome o = train("--model mlp:2-16-1 --data csv:" + path +
                          ":label=y:target=float --loss mse --epochs 5 --batch-size 32 --lr 0.05 "
                          "--workers 2");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("float target 'y'"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find(" acc "), std::string::npos) << "no accuracy for float targets:\n" << o.out;
  const double first = last_figure(o.out.substr(0, o.out.find("epoch 2/5")), "train loss ");
  const double test = last_figure(o.out, "test loss ");
  EXPECT_GT(variance, 1.0);
  EXPECT_LT(test, 0.02 * variance) << o.out;  // the mean alone would score the variance
  EXPECT_LT(last_figure(o.out, "train loss "), first) << o.out;
}

TEST(TrainApp, ClassLabelsInANamedMiddleColumnTrainWithCrossEntropy) {
  const std::string dir = kiln::testing::fresh_folder("apps_middle_label").string();
  std::string text = "x0,cls,x1\n";
  for (int i = 0; i < 200; ++i) {
    const int label = i % 2;
    text += std::to_string(label ? 1.0 + 0.01 * (i % 7) : -1.0 - 0.01 * (i % 5)) + "," +
            std::to_string(label) + "," + std::to_string(0.1 * (i % 3)) + "\n";
  }
  const std::string path = kiln::testing::write_text(std::filesystem::path(dir) / "t.csv", text);
  const Outcome o = train("--model mlp:2-8-2 --data csv:" + path +
                          ":label=cls --epochs 3 --batch-size 20 --lr 0.1 --workers 0");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("2 classes"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("test loss"), std::string::npos) << o.out;
  EXPECT_GT(last_figure(o.out, " acc "), 90.0) << o.out;  // one feature separates the classes
}

TEST(TrainApp, TestShareZeroTrainsOnEverySampleAndEvaluatesNothing) {
  const std::string dir = kiln::testing::fresh_folder("apps_no_test").string();
  double variance = 0;
  const std::string path = write_regression_csv(dir, 100, &variance);
  const Outcome o = train("--model mlp:2-4-1 --data csv:" + path +
                          ":label=1:target=float --loss mse --epochs 1 --batch-size 10 "
                          "--test-share 0 --workers 0");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("100 x (2,)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("no test split"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("test loss"), std::string::npos) << o.out;
}

TEST(TrainApp, BadLossOptimizerAndSplitSettingsAreRefusedInOneLine) {
  const std::string dir = kiln::testing::fresh_folder("apps_bad_settings").string();
  double variance = 0;
  const std::string path = write_regression_csv(dir, 100, &variance);
  const std::string regression = "--model mlp:2-4-1 --data csv:" + path +
                                 ":label=y:target=float --epochs 1 --batch-size 10 --workers 0";
  expect_one_line_error(train(regression), "train", "use --loss mse");
  expect_one_line_error(train(regression + " --loss hinge"), "train", "unknown loss 'hinge'");
  expect_one_line_error(train(regression + " --loss mse --momentum 1"), "train",
                        "--momentum must be in [0, 1), found 1");
  expect_one_line_error(train(regression + " --loss mse --optimizer adam --beta1 1.5"), "train",
                        "--beta1 must be in [0, 1), found 1.5");
  expect_one_line_error(train(regression + " --loss mse --optimizer adam --beta2 1"), "train",
                        "--beta2 must be in [0, 1)");
  expect_one_line_error(train(regression + " --loss mse --optimizer adam --eps 0"), "train",
                        "--eps must be positive");
  expect_one_line_error(train(regression + " --loss mse --beta1 0.8"), "train",
                        "not --optimizer momentum");
  expect_one_line_error(train(regression + " --loss mse --test-share 1"), "train",
                        "--test-share must be in [0, 1)");
  expect_one_line_error(train(kSmallRun + " --loss mse"), "train", "MSELoss needs float targets");
  expect_one_line_error(train("--model mlp:2-4-1 --data csv:" + path + ":label=price --epochs 1"),
                        "train", "has no column named 'price'");
}

TEST(TrainApp, TestDataIsASeparateTestSource) {
  const std::string train_dir = kiln::testing::fresh_folder("apps_test_data_train").string();
  const std::string test_dir = kiln::testing::fresh_folder("apps_test_data_test").string();
  double variance = 0;
  const std::string train_csv = write_regression_csv(train_dir, 100, &variance);
  const std::string test_csv = write_regression_csv(test_dir, 30, &variance);
  const std::string spec = ":label=y:target=float";
  const Outcome o =
      train("--model mlp:2-4-1 --data csv:" + train_csv + spec + " --test-data csv:" + test_csv +
            spec + " --loss mse --epochs 1 --batch-size 10 --workers 0");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("test: CSV " + test_csv + " (30 x (2,)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("100 x (2,)"), std::string::npos) << "nothing held out:\n" << o.out;
  EXPECT_NE(o.out.find("test loss"), std::string::npos) << o.out;
}
