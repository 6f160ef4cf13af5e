// train's words for what the library says in its API (apps/train/flag_words.h): the diagnosis's
// advice reads as train always printed it, and library messages come back with train's flags.
#include <gtest/gtest.h>

#include <string>

#include "kiln/apps/train/flag_words.h"
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

TEST(TrainFlagWords, PutTrainsFlagsInPlaceOfTheLibrarysNames) {
  EXPECT_EQ(kiln::in_flag_words("TrainerOptions::keep_checkpoints must be at least 1, found 0"),
            "--keep-checkpoints must be at least 1, found 0");
  EXPECT_EQ(kiln::in_flag_words(
                "TrainerOptions::precision = MatmulPrecision::tf32 is a GPU tensor-core format "
                "the CPU does not have; use TrainerOptions::precision = MatmulPrecision::fp32 "
                "or bf16"),
            "--precision tf32 is a GPU tensor-core format the CPU does not have; use --precision "
            "fp32 or bf16");
  EXPECT_EQ(kiln::in_flag_words(
                "OptimizerSettings::beta1, OptimizerSettings::beta2 and OptimizerSettings::eps "
                "set Adam and AdamW, not optimizer sgd (which takes OptimizerSettings::momentum "
                "and OptimizerSettings::nesterov)"),
            "--beta1, --beta2 and --eps set Adam and AdamW, not --optimizer sgd (which takes "
            "--momentum and "
            "--nesterov)");
  EXPECT_EQ(kiln::in_flag_words(
                "data spec article takes no argument (use DataSpecOptions::samples), found 'x'"),
            "--data article takes no argument (use --samples N), found 'x'");
  EXPECT_EQ(kiln::in_flag_words("a message without the library's names"),
            "a message without the library's names");
}

}  // namespace
