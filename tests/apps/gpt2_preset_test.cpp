// train --model gpt2 end to end: GPT-2 small's shape (124M parameters, vocabulary 50257 padded to
// 50304, llm.c's 124475904 parameters) trained for two steps at a small context from an llm.c
// token file, --dropout in the spec the run records; and --dropout refused where it does not fit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/apps/app_testing.h"
#include "tests/data/file_testing.h"

using kiln::testing::expect_one_line_error;
using kiln::testing::Outcome;
using kiln::testing::train;

namespace {

void put_i32(std::vector<std::uint8_t>& out, std::int32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// llm.c's .bin (dev/data/data_common.py): 256 int32 of header (magic 20240520, version 1, the
// token count), then uint16 ids, here GPT-2-sized ones up to 50256 from an LCG.
std::vector<std::uint8_t> llmc_tokens(std::int32_t count) {
  std::vector<std::uint8_t> out;
  put_i32(out, 20240520);
  put_i32(out, 1);
  put_i32(out, count);
  out.resize(256 * 4, 0);
  std::uint32_t state = 7;
  for (std::int32_t i = 0; i < count; ++i) {
    state = state * 1664525u + 1013904223u;
    const auto id = static_cast<std::uint16_t>(i == 0 ? 50256 : (state >> 8) % 50257);
    out.push_back(static_cast<std::uint8_t>(id & 0xff));
    out.push_back(static_cast<std::uint8_t>(id >> 8));
  }
  return out;
}

}  // namespace

TEST(Gpt2Preset, TrainsGpt2sShapeAtASmallContextFromAnLlmcFile) {
  const auto folder = kiln::testing::fresh_folder("gpt2_preset");
  const std::string data = kiln::testing::write_bytes(folder / "train.bin", llmc_tokens(4000));
  const std::string log = (folder / "log.jsonl").string();
  const Outcome o = train("--model gpt2 --dropout 0.1 --data tokens:" + data +
                          ":context=16 --steps 2 --batch-size 2 --eval-iters 1 --optimizer adamw "
                          "--lr 1e-4 --log-json " +
                          log);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  // llm.c's count for GPT-2 small with its padded vocabulary; the spec the run records.
  EXPECT_NE(o.out.find("124475904 parameters"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("kiln train: gpt2:dropout=0.1 on cpu"), std::string::npos) << o.out;
  const nlohmann::json line = nlohmann::json::parse(kiln::testing::read_file(log));
  const double loss = line.at("train_loss").get<double>();
  // GPT-2's initialisation starts near the uniform guess over 50257 tokens, ln 50257 = 10.82.
  EXPECT_TRUE(std::isfinite(loss) && std::abs(loss - std::log(50257.0)) < 1.0) << loss;
}

TEST(Gpt2Preset, DropoutIsRefusedForAModelItDoesNotApplyTo) {
  expect_one_line_error(train("--model article --dropout 0.1 --epochs 1"), "train",
                        "--dropout applies to gpt models");
  expect_one_line_error(train("--model gpt:2-2-16-8:dropout=0.2 --dropout 0.1 --epochs 1"), "train",
                        "give one of them");
}
