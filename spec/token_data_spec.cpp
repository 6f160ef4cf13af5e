#include "kiln/spec/token_data_spec.h"

#include <charconv>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"
#include "kiln/data/token_window_dataset.h"
#include "kiln/spec/spec_options.h"

namespace kiln {

namespace {

constexpr const char* kForm = "tokens:PATH[:chars|:u16][:vocab=N][:context=T]";

std::int64_t positive_number(const std::string& key, const std::string& value) {
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  KILN_CHECK(ec == std::errc() && end == value.data() + value.size() && n >= 1,
             "{} tokens:...:{}={}: expected a whole number of at least 1 ({})", Setting::data_spec,
             key, excerpt(value), kForm);
  return n;
}

std::int64_t context_of(const TokenSource& source, const DataSpecOptions& o) {
  // A GPT reads windows up to its context: shorter ones train it at a smaller context.
  KILN_CHECK(source.context == 0 || o.context == 0 || source.context <= o.context,
             "{} tokens:...:context={} but the model's context ({}) is {}: windows can be at "
             "most as long as the model's context; drop :context or give at most {}",
             Setting::data_spec, source.context, Setting::context, o.context, o.context);
  const std::int64_t context = source.context > 0 ? source.context : o.context;
  KILN_CHECK(context > 0,
             "{} tokens:{} needs a context length, the tokens of each window: give it as "
             "{} or as :context=T ({})",
             Setting::data_spec, source.path, Setting::context_from_model, kForm);
  return context;
}

}  // namespace

TokenSource parse_token_source(std::string argument) {
  TokenSource source;
  bool encoding_given = false;
  for (const SpecOption& option : peel_spec_options(argument, {"chars", "u16", "bytes"})) {
    const std::string& key = option.key;
    if (!option.value) {
      KILN_CHECK(!encoding_given, "{} tokens:...: give one of chars, u16 or bytes ({})",
                 Setting::data_spec, kForm);
      encoding_given = true;
      source.file.encoding = key == "chars" ? TokenEncoding::chars
                             : key == "u16" ? TokenEncoding::u16
                                            : TokenEncoding::bytes;
    } else if (key == "vocab") {
      source.file.vocab_size = positive_number(key, *option.value);
    } else if (key == "context") {
      source.context = positive_number(key, *option.value);
    } else {
      KILN_THROW(
          "{} tokens:...:{}: unknown option {}; tokens takes chars, u16, vocab=N and "
          "context=T ({})",
          Setting::data_spec, excerpt(option.text), excerpt(key), kForm);
    }
  }
  KILN_CHECK(!argument.empty(), "{} tokens:PATH needs a file ({})", Setting::data_spec, kForm);
  source.path = argument;
  return source;
}

DataSplits token_splits(const std::string& argument, const DataSpecOptions& o) {
  const TokenSource source = parse_token_source(argument);
  KILN_CHECK(o.samples == 0,
             "{} {} does not apply to tokens data, whose samples are windows drawn at "
             "random; count the run in steps instead",
             Setting::samples, o.samples);
  const std::int64_t context = context_of(source, o);
  auto tokens = std::make_shared<const TokenSequence>(source.path, source.file);
  DataSplits splits;
  splits.vocabulary = tokens->vocabulary();
  TokenWindowOptions train{.context = context,
                           .begin = 0,
                           .end = tokens->size(),
                           .order = WindowOrder::random,
                           .seed = o.seed};
  if (!o.test_data.empty()) {
    KILN_CHECK(o.test_data.rfind("tokens:", 0) == 0,
               "{} {} beside tokens data: the test data must be a tokens: spec too",
               Setting::test_data, o.test_data);
    TokenSource test = parse_token_source(o.test_data.substr(7));
    KILN_CHECK(test.file.encoding == source.file.encoding,
               "{} {} reads its file otherwise than {} tokens:{}: give both the "
               "same form (bytes, chars or u16)",
               Setting::test_data, o.test_data, Setting::data_spec, argument);
    if (source.file.encoding == TokenEncoding::chars) test.file.vocabulary = &tokens->vocabulary();
    if (!test.file.vocab_size && tokens->vocabulary().kind == VocabularyKind::ids)
      test.file.vocab_size =
          tokens->vocabulary().size;  // its ids must fit the training data's model
    auto test_tokens = std::make_shared<const TokenSequence>(test.path, test.file);
    KILN_CHECK(test_tokens->vocabulary().size <= tokens->vocabulary().size,
               "{} {} has a vocabulary of {}, larger than the training data's {}",
               Setting::test_data, o.test_data, test_tokens->vocabulary().size,
               tokens->vocabulary().size);
    splits.train = std::make_shared<TokenWindowDataset>(tokens, train);
    splits.test = std::make_shared<TokenWindowDataset>(
        test_tokens, TokenWindowOptions{.context = context, .order = WindowOrder::strided});
    return splits;
  }
  const double share = o.test_share.value_or(kDefaultTestShare);
  const auto held = static_cast<std::int64_t>(share * static_cast<double>(tokens->size()));
  train.end = tokens->size() - held;
  splits.train = std::make_shared<TokenWindowDataset>(tokens, train);
  if (held > 0) {
    KILN_CHECK(held >= context + 1,
               "the last {} of {} ({} tokens) are fewer than one window of context {} and its next "
               "token: use "
               "more text, a larger {} or a smaller context",
               share, tokens->describe(), held, context, Setting::test_share);
    splits.test = std::make_shared<TokenWindowDataset>(
        tokens, TokenWindowOptions{.context = context,
                                   .begin = train.end,
                                   .end = tokens->size(),
                                   .order = WindowOrder::strided});
  }
  return splits;
}

}  // namespace kiln
