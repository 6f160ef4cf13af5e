// kiln-generate end to end: train writes a tiny GPT (gpt:2-2-32-16, a few steps) on a text as
// characters and as bytes into a checkpoint folder, and kiln-generate samples from it: the prompt
// comes back followed by the asked number of characters of the training text's alphabet, the same
// for a seed with and without the cache; and the one-line errors for a missing checkpoint, one
// of another model, a prompt character the vocabulary lacks and an empty prompt.
#include <gtest/gtest.h>

#include <string>

#include "tests/apps/app_testing.h"
#include "tests/data/file_testing.h"

using kiln::testing::expect_one_line_error;
using kiln::testing::generate;
using kiln::testing::Outcome;
using kiln::testing::run;
using kiln::testing::train;

namespace {

// A few hundred words of a small alphabet: "abc dcab ...".
std::string training_text() { return kiln::testing::lcg_words(5, 3000, 6); }

// Trains gpt:2-2-32-16 for a few steps on `data` (a tokens: spec of the text) into `dir`.
void train_tiny_gpt(const std::string& data, const std::string& dir) {
  const Outcome trained =
      train("--model gpt:2-2-32-16 --data " + data +
            " --steps 8 --eval-interval 8 --eval-iters 1 --batch-size 4 --optimizer adamw --lr 3e-3"
            " --quiet --checkpoint " +
            dir);
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
}

}  // namespace

TEST(GenerateApp, SamplesTheTrainedAlphabetFromACharacterCheckpointTheSameWithoutTheCache) {
  const auto folder = kiln::testing::fresh_folder("generate_chars");
  const std::string text = kiln::testing::write_text(folder / "text.txt", training_text());
  const std::string dir = (folder / "ck").string();
  train_tiny_gpt("tokens:" + text + ":chars", dir);
  const std::string args = "--checkpoint " + dir + " --prompt 'ab c' --tokens 30 --seed 4";
  const Outcome sampled = generate(args);
  ASSERT_EQ(sampled.exit_code, 0) << sampled.err;
  ASSERT_EQ(sampled.out.size(), 4u + 30u + 1u) << sampled.out;  // one byte per character here
  EXPECT_EQ(sampled.out.substr(0, 4), "ab c");
  EXPECT_EQ(sampled.out.back(), '\n');
  for (const char c : sampled.out.substr(4, 30))
    EXPECT_TRUE(c == ' ' || (c >= 'a' && c <= 'f')) << "'" << c << "' in " << sampled.out;
  EXPECT_NE(sampled.err.find("30 tokens in"), std::string::npos) << sampled.err;
  EXPECT_NE(sampled.err.find("key-value cache"), std::string::npos) << sampled.err;
  EXPECT_EQ(generate(args).out, sampled.out);
  const Outcome uncached = generate(args + " --no-cache");
  EXPECT_EQ(uncached.out, sampled.out);
  EXPECT_NE(uncached.err.find("no cache"), std::string::npos) << uncached.err;
  EXPECT_EQ(generate(args + " --temperature 0").out, generate(args + " --top-k 1").out);

  expect_one_line_error(generate("--checkpoint " + dir + " --prompt 'abz'"), "kiln-generate",
                        "character 2 of the text, 'z' (U+007A), is not in the vocabulary of 7");
  expect_one_line_error(generate("--checkpoint " + dir + " --prompt ''"), "kiln-generate",
                        "a prompt of at least one token");
}

TEST(GenerateApp, SamplesFromAByteCheckpoint) {
  const auto folder = kiln::testing::fresh_folder("generate_bytes");
  const std::string text = kiln::testing::write_text(folder / "text.txt", training_text());
  const std::string dir = (folder / "ck").string();
  train_tiny_gpt("tokens:" + text, dir);
  const Outcome sampled = generate("--checkpoint " + dir + " --prompt 'zz' --tokens 5");
  ASSERT_EQ(sampled.exit_code, 0) << sampled.err;
  ASSERT_EQ(sampled.out.size(), 2u + 5u + 1u);  // bytes: any of the 256, one each
  EXPECT_EQ(sampled.out.substr(0, 2), "zz");
}

TEST(GenerateApp, RefusesAMissingCheckpointAndOneOfAnotherModel) {
  const auto folder = kiln::testing::fresh_folder("generate_refusals");
  expect_one_line_error(generate("--checkpoint " + (folder / "none").string()), "kiln-generate",
                        "holds no checkpoint");
  const std::string mlp = (folder / "mlp").string();
  ASSERT_EQ(train(kiln::testing::kSmallRun + " --quiet --checkpoint " + mlp).exit_code, 0);
  expect_one_line_error(generate("--checkpoint " + mlp), "kiln-generate",
                        "is of the model 'mlp:784-32-10', not a GPT");
}

// Hostile input, round 4: a number of tokens whose text cannot be held is one line in flag
// words (it was "vector::reserve"), and a range error names the flag and the value.
TEST(GenerateApp, TokensPastWhatMemoryHoldsAreOneLineInFlagWords) {
  const auto folder = kiln::testing::fresh_folder("generate_huge_tokens");
  const std::string text = kiln::testing::write_text(folder / "text.txt", training_text());
  const std::string dir = (folder / "ck").string();
  train_tiny_gpt("tokens:" + text + ":chars", dir);
  for (const std::string tokens : {"9223372036854775807", "4611686018427387904", "999999999999"}) {
    const Outcome o = generate("--checkpoint " + dir + " --prompt ab --tokens " + tokens);
    expect_one_line_error(o, "kiln-generate", "--tokens " + tokens + " makes a text of");
    EXPECT_NE(o.err.find("draw fewer tokens"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("GenerateOptions"), std::string::npos) << o.err;
  }
  expect_one_line_error(generate("--checkpoint " + dir + " --tokens -1"), "kiln-generate",
                        "--tokens must be >= 0, found -1");
}
