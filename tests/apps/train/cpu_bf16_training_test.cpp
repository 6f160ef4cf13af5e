// --precision on the CPU end to end: bf16 trains as fp32 does (its accuracy within a few points
// at this small size, its losses not bitwise fp32's, so the bf16 products really ran) on either
// CPU path; tf32, a GPU format, is refused with a message naming what to use.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "apps/train/train_options.h"
#include "kiln/core/cpu_compute.h"
#include "kiln/core/cpu_description.h"
#include "kiln/core/precision.h"
#include "tests/support/train_testing.h"

namespace {

kiln::TrainResult run(const std::string& precision) {
  kiln::TrainAppOptions o = kiln::testing::small_article_run("mlp:784-64-64-10", 2048, 64, 3);
  o.lr = 0.05f;
  o.precision = precision;
  std::ostringstream out;
  kiln::TrainResult result = kiln::train(o, out);
  kiln::set_matmul_precision(kiln::MatmulPrecision::fp32);  // train sets it for the process
  return result;
}

}  // namespace

TEST(CpuBf16Training, LearnsAsFp32DoesWithoutBeingFp32) {
  const kiln::TrainResult fp32 = run("fp32"), bf16 = run("bf16");
  const kiln::EpochReport &a = fp32.epochs.back(), &b = bf16.epochs.back();
  EXPECT_GT(b.test_accuracy, 0.5);  // 10 classes: chance is 0.1
  EXPECT_NEAR(b.test_accuracy, a.test_accuracy, 0.05);
  EXPECT_LT(b.train_loss, bf16.epochs.front().train_loss);
  EXPECT_NE(b.train_loss, a.train_loss) << "bf16 must round the products' inputs";
  EXPECT_EQ(b.precision, "bf16");
}

// What train says of bf16 on each kind of CPU, through the CPU description, on any machine.
TEST(CpuBf16Training, SaysBf16IsNoFasterOnlyOnACpuWithoutBf16Instructions) {
  if (!kiln::onednn_built()) GTEST_SKIP() << "the kernel sets are oneDNN's, absent from this build";
  for (const auto& [name, bf16] : {std::pair{"zen3", false}, std::pair{"skylake-sp", false},
                                   std::pair{"zen4", true}, std::pair{"sapphire-rapids", true}}) {
    SCOPED_TRACE(name);
    const kiln::ScopedCpuDescription cpu(kiln::named_cpu_description(name));
    kiln::TrainAppOptions o = kiln::testing::small_article_run("mlp:784-16-10", 256, 64, 1);
    o.precision = "bf16";
    o.quiet = false;  // the header says it
    std::ostringstream out;
    const kiln::TrainResult result = kiln::train(o, out);
    kiln::set_matmul_precision(kiln::MatmulPrecision::fp32);
    EXPECT_EQ(result.epochs.back().cpu_bf16_instructions, bf16);
    EXPECT_EQ(out.str().find("bf16 on this CPU: inputs rounded") != std::string::npos, !bf16)
        << out.str();
    EXPECT_NE(out.str().find(std::string("(CPU described as ") + name + ")"), std::string::npos)
        << out.str();
  }
}

TEST(CpuBf16Training, Tf32IsAGpuFormat) {
  kiln::TrainAppOptions o = kiln::testing::small_article_run("mlp:784-32-10", 256, 64, 1);
  o.precision = "tf32";
  std::ostringstream out;
  try {
    kiln::train(o, out);
    FAIL() << "tf32 on the CPU must be refused";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("use --precision fp32 or bf16"), std::string::npos)
        << e.what();
  }
  kiln::set_matmul_precision(kiln::MatmulPrecision::fp32);
}
