// Token data: byte and character vocabularies, nanoGPT's and llm.c's .bin files (and hostile
// ones), windows that are the same for any worker count, and the split by position.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "kiln/core/host_memory.h"

#include "kiln/checkpoint/training_state.h"
#include "kiln/data/data_loader.h"
#include "kiln/data/token_file.h"
#include "kiln/data/token_window_dataset.h"
#include "kiln/spec/data_spec.h"
#include "tests/data/file_testing.h"

namespace kiln {
namespace {

using testing::error_message;
using testing::fresh_folder;
using testing::write_bytes;
using testing::write_text;

void put_u16(std::vector<std::uint8_t>& out, std::uint32_t v) {
  out.push_back(static_cast<std::uint8_t>(v & 0xFF));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
}

void put_i32(std::vector<std::uint8_t>& out, std::int32_t value) {
  const auto v = static_cast<std::uint32_t>(value);
  for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
}

// llm.c's layout: 256 int32 of header (magic, version, count, zeros), then uint16 tokens.
std::vector<std::uint8_t> llmc_file(const std::vector<std::uint32_t>& tokens, std::int32_t count,
                                    std::int32_t version = 1) {
  std::vector<std::uint8_t> out;
  put_i32(out, kLlmcMagic);
  put_i32(out, version);
  put_i32(out, count);
  for (int i = 3; i < 256; ++i) put_i32(out, 0);
  for (std::uint32_t t : tokens) put_u16(out, t);
  return out;
}

TEST(TokenFile, ReadsTextAsBytesWithAVocabularyOf256) {
  const std::string path = write_text(fresh_folder("tok_bytes") / "t.txt", "hi\xff");
  const TokenSequence t(path);
  ASSERT_EQ(t.size(), 3);
  EXPECT_EQ(t[0], 'h');
  EXPECT_EQ(t[2], 255);
  EXPECT_EQ(t.vocabulary().kind, VocabularyKind::bytes);
  EXPECT_EQ(t.vocabulary().size, 256);
  EXPECT_EQ(decode(t.vocabulary(), {'h', 'i'}), "hi");
}

TEST(TokenFile, NumbersCharactersBySortedDistinctCodePoints) {
  const std::string text = "h\xc3\xa9llo h\xc3\xa9";  // "héllo hé"
  const std::string path = write_text(fresh_folder("tok_chars") / "t.txt", text);
  const TokenSequence t(path, {.encoding = TokenEncoding::chars});
  const Vocabulary& v = t.vocabulary();
  EXPECT_EQ(v.kind, VocabularyKind::chars);
  EXPECT_EQ(v.symbols, (std::vector<std::uint32_t>{' ', 'h', 'l', 'o', 0xE9}));
  ASSERT_EQ(t.size(), 8);
  EXPECT_EQ(t[0], 1);  // 'h'
  EXPECT_EQ(t[1], 4);  // 'é', the largest code point
  std::vector<std::int32_t> ids;
  for (std::int64_t i = 0; i < t.size(); ++i) ids.push_back(t[i]);
  EXPECT_EQ(decode(v, ids), text);
}

TEST(Vocabulary, EncodesTextAsDecodeReadsItAndNamesACharacterItLacks) {
  const Vocabulary chars = char_vocabulary("h\xc3\xa9llo", "t.txt");  // "héllo"
  EXPECT_EQ(encode(chars, "h\xc3\xa9l", "the prompt"), (std::vector<std::int32_t>{0, 3, 1}));
  EXPECT_EQ(decode(chars, encode(chars, "ol\xc3\xa9", "the prompt")), "ol\xc3\xa9");
  const std::string lacking = error_message([&] { encode(chars, "hex", "the prompt"); });
  EXPECT_NE(lacking.find("the prompt: character 1 of the text, 'e' (U+0065), is not in the "
                         "vocabulary of 4 characters"),
            std::string::npos)
      << lacking;
  EXPECT_EQ(encode(byte_vocabulary(), "h\xc3\xa9", "the prompt"),
            (std::vector<std::int32_t>{'h', 0xC3, 0xA9}));
  EXPECT_EQ(char_id(chars, 'o'), 2);
  EXPECT_EQ(char_id(chars, 'x'), -1);
  const Vocabulary ids{VocabularyKind::ids, 50257, {}};
  EXPECT_NE(error_message([&] { encode(ids, "hi", "the prompt"); }).find("cannot encode"),
            std::string::npos);
}

TEST(TokenFile, RefusesTextThatIsNotUtf8AsCharactersNamingTheByte) {
  const std::string path = write_text(fresh_folder("tok_badutf8") / "t.txt", "abc\xc3(def");
  const std::string message =
      error_message([&] { TokenSequence(path, {.encoding = TokenEncoding::chars}); });
  EXPECT_CONTAINS(message, "not UTF-8 text at byte 3");
  EXPECT_CONTAINS(message, "\\xc3");
}

TEST(TokenFile, NumbersATestTextByTheTrainingVocabularyAndRefusesNewCharacters) {
  const auto dir = fresh_folder("tok_testvocab");
  const TokenSequence train(write_text(dir / "a.txt", "abcabc"),
                            {.encoding = TokenEncoding::chars});
  const TokenSequence test(write_text(dir / "b.txt", "cab"),
                           {.encoding = TokenEncoding::chars, .vocabulary = &train.vocabulary()});
  EXPECT_EQ(test[0], 2);
  EXPECT_EQ(test.vocabulary(), train.vocabulary());
  const std::string message = error_message([&] {
    TokenSequence(write_text(dir / "c.txt", "abz"),
                  {.encoding = TokenEncoding::chars, .vocabulary = &train.vocabulary()});
  });
  EXPECT_CONTAINS(message, "U+007A at character 2");
}

TEST(TokenFile, ReadsNanoGptUint16Files) {
  std::vector<std::uint8_t> bytes;
  for (std::uint32_t t : {1u, 50000u, 7u}) put_u16(bytes, t);
  const std::string path = write_bytes(fresh_folder("tok_u16") / "train.bin", bytes);
  const TokenSequence t(path, {.encoding = TokenEncoding::u16, .vocab_size = 50304});
  ASSERT_EQ(t.size(), 3);
  EXPECT_EQ(t[1], 50000);
  EXPECT_EQ(t.vocabulary().kind, VocabularyKind::ids);
  EXPECT_EQ(t.vocabulary().size, 50304);
  // Without a size: the largest id + 1.
  EXPECT_EQ(TokenSequence(path, {.encoding = TokenEncoding::u16}).vocabulary().size, 50001);
}

TEST(TokenFile, RefusesAUint16TokenOutsideTheVocabularyNamingItsPosition) {
  std::vector<std::uint8_t> bytes;
  for (std::uint32_t t : {1u, 2u, 300u}) put_u16(bytes, t);
  const std::string path = write_bytes(fresh_folder("tok_u16_bad") / "train.bin", bytes);
  const std::string message = error_message(
      [&] { TokenSequence(path, {.encoding = TokenEncoding::u16, .vocab_size = 256}); });
  EXPECT_CONTAINS(message, "token 300 at position 2 (byte 4");
  EXPECT_CONTAINS(message, path);
  bytes.push_back(9);  // an odd size: not whole tokens
  write_bytes(path, bytes);
  EXPECT_CONTAINS(error_message([&] { TokenSequence(path, {.encoding = TokenEncoding::u16}); }),
                  "odd number");
}

TEST(TokenFile, RecognisesLlmcFilesByTheirMagic) {
  const std::string path =
      write_bytes(fresh_folder("tok_llmc") / "val.bin", llmc_file({5, 50256, 0, 11}, 4));
  const TokenSequence t(path);  // asked as text: the magic decides
  ASSERT_EQ(t.size(), 4);
  EXPECT_EQ(t[1], 50256);
  EXPECT_EQ(t[3], 11);
  EXPECT_EQ(t.vocabulary().size, 50257);
  EXPECT_CONTAINS(t.describe(), "llm.c");
}

TEST(TokenFile, RefusesHostileLlmcFilesClearly) {
  const auto dir = fresh_folder("tok_llmc_bad");
  std::vector<std::uint8_t> truncated = llmc_file({}, 0);
  truncated.resize(100);
  EXPECT_CONTAINS(error_message([&] { TokenSequence(write_bytes(dir / "a.bin", truncated)); }),
                  "less than its 1024-byte header");
  EXPECT_CONTAINS(error_message([&] {
                    TokenSequence(write_bytes(dir / "b.bin", llmc_file({1, 2}, 1000)));
                  }),
                  "states 1000 tokens, but the file holds room for 2");
  EXPECT_CONTAINS(error_message([&] {
                    TokenSequence(write_bytes(dir / "c.bin", llmc_file({1, 2}, -5)));
                  }),
                  "states -5 tokens");
  EXPECT_CONTAINS(error_message([&] {
                    TokenSequence(write_bytes(dir / "d.bin", llmc_file({1, 2, 3}, 2)));
                  }),
                  "2 bytes follow the tokens");
  EXPECT_CONTAINS(
      error_message([&] { TokenSequence(write_bytes(dir / "e.bin", llmc_file({1}, 1, 7))); }),
      "version 7");
  const std::string f = write_bytes(dir / "f.bin", llmc_file({1, 60000}, 2));
  EXPECT_CONTAINS(error_message([&] { TokenSequence(f, {.vocab_size = 50257}); }),
                  "token 60000 at position 1 (byte 1026");
}

std::string counting_text(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += static_cast<char>('a' + i % 26);
  return text;
}

TEST(TokenWindowDataset, TargetsAreTheInputsShiftedByOne) {
  auto tokens = std::make_shared<const TokenSequence>(
      write_text(fresh_folder("tok_win") / "t.txt", counting_text(200)));
  const TokenWindowDataset data(tokens, {.context = 8, .seed = 3});
  EXPECT_EQ(data.size(), 199 / 8);
  EXPECT_EQ(data.sample_shape(), Shape{8});
  EXPECT_EQ(data.target_shape(), Shape{8});
  EXPECT_EQ(data.num_classes(), 256);
  std::vector<float> x(8);
  std::vector<std::int32_t> y(8);
  for (std::int64_t i = 0; i < data.size(); ++i) {
    data.get_for_epoch(i, 1, x.data(), y.data());
    const std::int64_t s = data.window_start(i, 1);
    ASSERT_TRUE(s >= 0 && s + 8 < 200);
    for (int k = 0; k < 8; ++k) {
      EXPECT_EQ(x[static_cast<std::size_t>(k)], static_cast<float>((*tokens)[s + k]));
      EXPECT_EQ(y[static_cast<std::size_t>(k)], (*tokens)[s + k + 1]);
    }
  }
  // Another epoch draws other windows.
  int same = 0;
  for (std::int64_t i = 0; i < data.size(); ++i)
    same += data.window_start(i, 0) == data.window_start(i, 1);
  EXPECT_LT(same, data.size());
}

TEST(TokenWindowDataset, BatchesAreTheSameForAnyNumberOfWorkers) {
  auto tokens = std::make_shared<const TokenSequence>(
      write_text(fresh_folder("tok_workers") / "t.txt", counting_text(3001)));
  auto data = std::make_shared<const TokenWindowDataset>(
      tokens, TokenWindowOptions{.context = 16, .seed = 11});
  std::vector<std::vector<float>> reference;
  for (int workers : {0, 1, 3}) {
    DataLoader loader(data, {.batch_size = 7, .seed = 5, .num_workers = workers});
    std::vector<std::vector<float>> seen;
    for (int epoch = 0; epoch < 2; ++epoch)
      for (const Batch& b : loader) {
        ASSERT_EQ(b.x.shape(), (Shape{b.x.size(0), 16}));
        ASSERT_EQ(b.y.shape(), (Shape{b.x.size(0), 16}));
        ASSERT_EQ(b.y.dtype(), DType::i32);
        std::vector<float> both = b.x.to_vector<float>();
        for (std::int32_t label : b.y.to_vector<std::int32_t>())
          both.push_back(static_cast<float>(label));
        seen.push_back(std::move(both));
      }
    if (reference.empty())
      reference = seen;
    else
      EXPECT_EQ(seen, reference) << workers << " workers";
  }
  EXPECT_EQ(reference.size(), 2 * ((3000 / 16 + 6) / 7));
}

TEST(TokenDataSpec, SplitsByPositionTheLastShareValidating) {
  const std::string path = write_text(fresh_folder("tok_split") / "t.txt", counting_text(1000));
  const DataSplits splits =
      open_data("tokens:" + path + ":context=10", {.seed = 2, .test_share = 0.2});
  const auto& train = dynamic_cast<const TokenWindowDataset&>(*splits.train);
  const auto& test = dynamic_cast<const TokenWindowDataset&>(*splits.test);
  ASSERT_TRUE(splits.vocabulary);
  EXPECT_EQ(splits.vocabulary->size, 256);
  for (std::int64_t i = 0; i < train.size(); ++i) {
    const std::int64_t s = train.window_start(i, 0);
    EXPECT_TRUE(s >= 0 && s + 10 < 800) << s;  // its targets too stay before the validation tail
  }
  EXPECT_EQ(test.size(), (200 - 1) / 10);
  for (std::int64_t i = 0; i < test.size(); ++i) EXPECT_EQ(test.window_start(i, 4), 800 + 10 * i);
  // The context from the caller (the model's) when the spec gives none; the spec's at most it.
  EXPECT_EQ(open_data("tokens:" + path, {.context = 12}).train->sample_shape(), Shape{12});
  EXPECT_CONTAINS(error_message([&] { open_data("tokens:" + path); }), "needs a context length");
  EXPECT_EQ(open_data("tokens:" + path + ":context=10", {.context = 12}).train->sample_shape(),
            Shape{10});  // shorter windows than the model's context
  EXPECT_CONTAINS(
      error_message([&] { open_data("tokens:" + path + ":context=14", {.context = 12}); }),
      "at most as long as the model's context");
  EXPECT_CONTAINS(error_message([&] { open_data("tokens:" + path + ":context=10:wide=1"); }),
                  "unknown option");
  EXPECT_FALSE(open_data("tokens:" + path + ":context=10", {.test_share = 0.0}).test);
}

TEST(TokenDataSpec, TakesATestFileWithTheTrainingVocabulary) {
  const auto dir = fresh_folder("tok_testfile");
  const std::string train = write_text(dir / "train.txt", counting_text(300));
  const std::string test = write_text(dir / "test.txt", "zyxwvutsrqponmlkjihgfedcba");
  const DataSplits splits =
      open_data("tokens:" + train + ":chars:context=5", {.test_data = "tokens:" + test + ":chars"});
  EXPECT_EQ(splits.vocabulary->size, 26);
  const auto& t = dynamic_cast<const TokenWindowDataset&>(*splits.test);
  EXPECT_EQ(t.tokens()[0], 25);  // 'z' in the training text's numbering
  EXPECT_EQ(t.size(), 25 / 5);
  EXPECT_EQ(splits.train->size(), 299 / 5);  // all of the training file trains
}

TEST(TokenDataSpec, TheVocabularyRoundTripsThroughACheckpointState) {
  TrainingState state;
  state.batch_size = 1;
  state.vocabulary = Vocabulary{VocabularyKind::chars, 3, {10, 'a', 0x1F600}};
  const TrainingState back = parse_training_state(state_to_json(state), "state.json");
  ASSERT_TRUE(back.vocabulary);
  EXPECT_EQ(*back.vocabulary, *state.vocabulary);
  state.vocabulary.reset();  // a state of other data records none, as older ones
  EXPECT_FALSE(parse_training_state(state_to_json(state), "state.json").vocabulary);
  std::string broken = state_to_json(
      TrainingState{.batch_size = 1, .vocabulary = Vocabulary{VocabularyKind::chars, 2, {98, 97}}});
  EXPECT_CONTAINS(error_message([&] { parse_training_state(broken, "state.json"); }),
                  "not ascending");
}

// Hostile input, round 4: a large text read as characters. The vocabulary is found in the
// mapping (a mark per code point, not a list of the text's), the ids are the file's one
// allocation, and a text whose ids cannot fit is refused with the figures before it is read.
TEST(TokenFile, NumbersCharactersInPlaceAsTheListOfCodePointsWould) {
  const auto folder = fresh_folder("tokens_chars_in_place");
  std::uint32_t state = 17;
  for (const std::size_t length : {1u, 7u, 333u, 4099u}) {
    std::string text;
    const char* pieces[] = {"a",  "Z",   " ", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
                            "\n", "\x01"};
    for (std::size_t i = 0; i < length; ++i) {
      state = state * 1664525u + 1013904223u;
      text += pieces[(state >> 24) % 8];
    }
    const std::string path = write_text(folder / "text.txt", text);
    const TokenSequence tokens(path, {.encoding = TokenEncoding::chars});
    std::vector<std::uint32_t> points = utf8_code_points(text, path);
    ASSERT_EQ(tokens.size(), static_cast<std::int64_t>(points.size()));
    std::vector<std::uint32_t> symbols = points;
    std::sort(symbols.begin(), symbols.end());
    symbols.erase(std::unique(symbols.begin(), symbols.end()), symbols.end());
    EXPECT_EQ(tokens.vocabulary().symbols, symbols);
    for (std::size_t i = 0; i < points.size(); ++i)
      ASSERT_EQ(tokens.vocabulary()
                    .symbols[static_cast<std::size_t>(tokens[static_cast<std::int64_t>(i)])],
                points[i]);
    EXPECT_EQ(utf8_length(text, path), static_cast<std::int64_t>(points.size()));
  }
}

// Ids take 2 bytes while the vocabulary has at most 65536 characters, 4 past it: both read back.
TEST(TokenFile, AVocabularyPast65536CharactersKeepsEveryId) {
  std::string text;
  constexpr std::uint32_t kFirst = 0x10000, kCount = 70000;  // 4-byte UTF-8 each
  for (std::uint32_t i = 0; i < kCount; ++i) {
    const std::uint32_t c = kFirst + (i * 7919u) % kCount;  // every one once, out of order
    text += static_cast<char>(0xF0 | (c >> 18));
    text += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    text += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    text += static_cast<char>(0x80 | (c & 0x3F));
  }
  const std::string path = write_text(fresh_folder("tokens_wide_chars") / "t.txt", text);
  const TokenSequence tokens(path, {.encoding = TokenEncoding::chars});
  ASSERT_EQ(tokens.vocabulary().size, kCount);
  ASSERT_EQ(tokens.size(), kCount);
  for (std::uint32_t i = 0; i < kCount; i += 997)
    EXPECT_EQ(tokens[i], static_cast<std::int32_t>((i * 7919u) % kCount)) << i;
  EXPECT_EQ(tokens[kCount - 1], static_cast<std::int32_t>(((kCount - 1) * 7919u) % kCount));
}

TEST(TokenFile, ATextWhoseCharacterIdsCannotFitIsRefusedBeforeItIsRead) {
  const auto folder = fresh_folder("tokens_chars_huge");
  // Sparse files: no disk taken, and the refusal comes from the size alone (reading this many
  // zero pages would take minutes).
  const std::uint64_t memory = host_memory_bytes();
  ASSERT_GT(memory, 0u);
  // Its ids take at least 2 bytes per 4 of UTF-8: past half the memory from the memory's size.
  for (const std::uint64_t size : {memory + 4096, 2 * memory, 3 * memory}) {
    const std::string path = (folder / "sparse.txt").string();
    std::filesystem::remove(path);
    { std::ofstream(path).flush(); }
    std::filesystem::resize_file(path, size);
    const auto start = std::chrono::steady_clock::now();
    const std::string message =
        error_message([&] { TokenSequence(path, {.encoding = TokenEncoding::chars}); });
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_NE(
        message.find(fmt::format("token file {} read as characters ({} bytes) needs", path, size)),
        std::string::npos)
        << message;
    EXPECT_NE(message.find("read it as bytes (tokens:PATH)"), std::string::npos) << message;
    // As bytes, the same file is mapped, not copied: it opens.
    EXPECT_EQ(TokenSequence(path).size(), static_cast<std::int64_t>(size));
    std::filesystem::remove(path);
  }
}

TEST(Vocabulary, TheDifferenceOfTwoCharacterVocabulariesNamesTheCharacters) {
  const Vocabulary then = char_vocabulary("abcdq", "then"), now = char_vocabulary("abcdz", "now");
  EXPECT_EQ(vocabulary_difference(then, now),
            "a chars vocabulary of 5 tokens (this run: a chars vocabulary of 5; only the "
            "checkpoint's has 'q' (U+0071); only this run's has 'z' (U+007A))");
  EXPECT_EQ(vocabulary_difference(then, then), "");
  const Vocabulary many = char_vocabulary("abcdefghijklmnop", "many");
  EXPECT_NE(vocabulary_difference(many, char_vocabulary("a", "one"))
                .find("only the checkpoint's has 'b' (U+0062), 'c' (U+0063)"),
            std::string::npos);
  EXPECT_NE(vocabulary_difference(many, char_vocabulary("a", "one")).find("and 7 more"),
            std::string::npos);
  EXPECT_EQ(vocabulary_difference(byte_vocabulary(), then),
            "a bytes vocabulary of 256 tokens (this run: a chars vocabulary of 5)");
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

// A field of /proc/self/status in bytes ("RssAnon", "RssFile"); -1 where the kernel has none.
std::int64_t status_bytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field + ":", 0) == 0) return std::atoll(line.c_str() + field.size() + 1) * 1024;
  return -1;
}

// A 4 GiB text read as bytes (a sparse file: it takes no disk) holds 2^29 windows of 8 tokens:
// an epoch order in memory would take 4 GiB (8 bytes a window). Opening it and drawing a first
// batch, and a batch deep inside the epoch, must leave the process about as large as before.
TEST(TokenWindowDataset, AFileFarLargerThanTheLoadersMemoryOpensAndGivesItsFirstBatch) {
  const std::filesystem::path path = fresh_folder("tok_huge") / "huge.txt";
  const std::int64_t size = std::int64_t{4} << 30;
  { std::ofstream(path, std::ios::binary) << "x"; }
  std::filesystem::resize_file(path, static_cast<std::uintmax_t>(size));
  const std::int64_t anon_before = status_bytes("RssAnon");
  {
    auto tokens = std::make_shared<const TokenSequence>(path.string());
    auto windows = std::make_shared<TokenWindowDataset>(tokens, TokenWindowOptions{.context = 8});
    ASSERT_EQ(windows->size(), (size - 1) / 8);
    DataLoader loader(windows, DataLoaderOptions{.batch_size = 4, .seed = 7, .num_workers = 2});
    auto first = loader.begin();
    ASSERT_FALSE(first == loader.end());
    EXPECT_EQ(first->x.size(0), 4);
    loader.set_epoch(0);
    auto deep = loader.begin_at(loader.batches_per_epoch() - 1);
    ASSERT_FALSE(deep == loader.end());
    EXPECT_EQ(deep->index, loader.batches_per_epoch() - 1);
    if (anon_before >= 0)  // loose: the workers' stacks and the slots, never the 4 GiB order
      EXPECT_LT(status_bytes("RssAnon") - anon_before, std::int64_t{64} << 20);
  }
  std::filesystem::remove(path);
}

// Checking a uint16 file's ids reads all of it; the pages read are given back as the check goes,
// so a 96 MiB file leaves far less than its size resident once opened.
TEST(TokenFile, CheckingAUint16FileLeavesLittleOfItResident) {
  const std::filesystem::path path = fresh_folder("tok_u16_big") / "train.bin";
  const std::int64_t tokens = std::int64_t{48} << 20;
  {
    std::ofstream out(path, std::ios::binary);
    std::vector<std::uint16_t> chunk(1 << 16);
    for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<std::uint16_t>(i % 50257);
    for (std::int64_t k = 0; k < tokens / std::ssize(chunk); ++k)
      out.write(reinterpret_cast<const char*>(chunk.data()),
                static_cast<std::streamsize>(2 * chunk.size()));
  }
  const std::int64_t file_before = status_bytes("RssFile");
  const TokenSequence t(path.string(), {.encoding = TokenEncoding::u16, .vocab_size = 50304});
  EXPECT_EQ(t.size(), tokens);
  EXPECT_EQ(t[tokens - 1], static_cast<std::int32_t>(((1 << 16) - 1) % 50257));
  if (file_before >= 0) EXPECT_LT(status_bytes("RssFile") - file_before, std::int64_t{32} << 20);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kiln
