// train's words for the settings the library names (apps/train/flag_words.h): the diagnosis's
// advice reads as train always printed it, and library messages come back with train's flags.
#include <gtest/gtest.h>

#include <string>

#include "apps/train/flag_words.h"
#include "kiln/core/error.h"
#include "kiln/spec/data_spec.h"
#include "kiln/spec/optimizer_spec.h"
#include "kiln/training/diagnosis.h"

namespace {

kiln::EpochReport report(double wait_ms, double copy_ms, bool gpu) {
  kiln::EpochReport r;
  r.wall_s = 10.0;
  r.on_gpu = gpu;
  r.batch_size = 128;
  r.stages[kiln::Stage::data_wait] = wait_ms;
  r.stages[kiln::Stage::copy] = copy_ms;
  r.stages[kiln::Stage::forward] = 10000.0 - wait_ms - copy_ms;
  return r;
}

TEST(TrainFlagWords, WordTheDiagnosisAsTrainsFlags) {
  const kiln::TrainFlagWords& words = kiln::train_flag_words();
  kiln::EpochReport input = report(8100.0, 0.0, true);
  input.workers = 1;
  EXPECT_EQ(kiln::diagnose(input, 16).lines(words).at(0),
            "input-bound: 81 % of step time waiting for data; try --workers 4 --pin-memory");
  EXPECT_EQ(kiln::diagnose(report(100.0, 3000.0, true), 8).lines(words).at(0),
            "copy-bound: 30 % of step time copying batches to the GPU; try --pin-memory so copies "
            "overlap "
            "compute");
  kiln::EpochReport cpu = report(50.0, 0.0, false);
  cpu.cpu_bf16_instructions = true;
  EXPECT_EQ(kiln::diagnose(cpu, 2).lines(words).at(1),
            "this CPU multiplies bf16 in hardware: --precision bf16 runs the matrix products and "
            "convolutions "
            "on it (bf16 inputs, fp32 accumulation and master weights; about 1e-2 relative error "
            "per product); "
            "bench --device=cpu --precision bf16 measures what it gives here");
  kiln::EpochReport gpu = report(10.0, 0.0, true);
  gpu.gpu_memory_peak_mib = 23.0;
  gpu.gpu_memory_total_mib = 100.0;
  EXPECT_EQ(kiln::diagnose(gpu, 8).lines(words).at(1),
            "GPU memory 23 % used: batch size 256 would fit (--find-batch-size measures it)");
  kiln::EpochReport ranks = report(10.0, 0.0, false);
  ranks.stages[kiln::Stage::allreduce] = 3000.0;
  EXPECT_EQ(kiln::diagnose(ranks, 8).lines(words).at(1),
            "communication-bound: 30 % of step time in the gradient all-reduce; a larger "
            "--batch-size gives "
            "each exchange more compute to hide behind, fewer ranks on a slow link exchange less");
}

// The message of what `run` throws, in train's words.
template <typename Run> std::string train_message(Run run) {
  try {
    run();
  } catch (const kiln::Error& e) {
    return e.message(kiln::train_flag_words());
  }
  ADD_FAILURE() << "no kiln::Error thrown";
  return "";
}

// The library's own messages, as the library throws them, name train's flags and nothing else.
TEST(TrainFlagWords, PutTrainsFlagsInTheLibrarysMessages) {
  EXPECT_EQ(train_message([] {
              kiln::OptimizerSettings s;
              s.beta1 = 0.5f;
              (void)kiln::make_optimizer("sgd", {}, 0.1f, s);
            }),
            "--beta1, --beta2 and --eps set Adam and AdamW, not --optimizer sgd (which takes "
            "--momentum and --nesterov)");
  EXPECT_EQ(train_message([] { (void)kiln::open_data("article:x"); }),
            "--data article takes no argument (use --samples N), found 'article:x'");
  EXPECT_EQ(train_message([] {
              KILN_CHECK(false,
                         "{} is a GPU tensor-core format the CPU does not have; use {} or bf16",
                         kiln::SettingValue{kiln::Setting::precision, "tf32"},
                         kiln::SettingValue{kiln::Setting::precision, "fp32"});
            }),
            "--precision tf32 is a GPU tensor-core format the CPU does not have; use --precision "
            "fp32 or bf16");
}

// what() keeps the library's words, and a message that quotes another keeps its settings.
TEST(TrainFlagWords, LeaveWhatInTheLibrarysWordsAndFollowAQuotedMessage) {
  try {
    KILN_THROW("{} must be at least 1, found {}", kiln::Setting::keep_checkpoints, 0);
  } catch (const kiln::Error& inner) {
    EXPECT_STREQ(inner.what(), "TrainerOptions::keep_checkpoints must be at least 1, found 0");
    const kiln::Error outer(fmt::format("saving: {}", inner.text()), "here");
    EXPECT_STREQ(outer.what(),
                 "saving: TrainerOptions::keep_checkpoints must be at least 1, found 0");
    EXPECT_EQ(outer.message(kiln::train_flag_words()),
              "saving: --keep-checkpoints must be at least 1, found 0");
  }
  const kiln::Error plain("a message without settings", "here");
  EXPECT_EQ(plain.message(kiln::train_flag_words()), "a message without settings");
}

// Every setting the library can name has train's word for it, so that no message reaches a
// train user in the library's API: a setting added without one fails here (and warns in the
// switch of apps/train/flag_words.cpp).
TEST(TrainFlagWords, HaveAWordForEverySettingTheLibraryNames) {
  const kiln::TrainFlagWords& train = kiln::train_flag_words();
  const kiln::SettingWords& api = kiln::api_setting_words();
  for (int i = 0; i < kiln::kSettingCount; ++i) {
    const auto setting = static_cast<kiln::Setting>(i);
    const std::string word = train.name(setting);
    EXPECT_FALSE(word.empty()) << "setting " << i << " (" << api.name(setting)
                               << ") has no train word";
    if (setting != kiln::Setting::model_structure)  // the one named alike in both
      EXPECT_NE(word, api.name(setting)) << "setting " << i;
    for (const char* api_word :
         {"Options::", "Settings::", "Trainer::", "Device::", "Logger", "RunReport"})
      EXPECT_EQ(word.find(api_word), std::string::npos) << word;
  }
}

}  // namespace
