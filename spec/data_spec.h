// Data sets by name, the data words of the spec language: open_data turns a spec such as
// "fashion-mnist", "csv:PATH:label=COLUMN" or "tokens:PATH:u16" into a train and a test split.
// Each source yields both; one without a test split of its own holds out `test_share` of its
// samples (every tenth by default), or takes its test samples from `test_data`.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/data/dataset.h"
#include "kiln/data/vocabulary.h"

namespace kiln {

struct DataSplits {
  std::shared_ptr<const Dataset> train;
  std::shared_ptr<const Dataset> test;  // null: no test split (test_share 0)
  bool own_test_split = false;          // the source's own test split, nothing held out
  // tokens: how ids map to text, for the checkpoint (TrainerOptions::vocabulary); else unset.
  std::optional<Vocabulary> vocabulary = std::nullopt;
};

// Held out for testing from a source without a test split, unless test_share says otherwise.
inline constexpr double kDefaultTestShare = 0.1;

struct DataSpecOptions {
  std::int64_t samples =
      0;  // train samples to use, spread evenly over the set; 0 = all (article: 160,000)
  std::uint64_t seed = 0;  // for generated data and random transforms
  // The share in [0, 1) held out for testing where the source has no test split (0: none;
  // unset: 0.1, every tenth sample). Given for a source with a test split of its own, it is an
  // error rather than ignored.
  std::optional<double> test_share = std::nullopt;
  // A separate test source: all of its samples (or its own test split, if it has one) are the
  // test split, and the main source's samples all train. Empty: none.
  std::string test_data = {};
  // tokens: the context length T of each window (the model's context), where the spec gives no
  // :context=T; a spec that gives one must agree. 0: none.
  std::int64_t context = 0;
};

// The specs open_data reads:
//   fashion-mnist[:FOLDER]   the IDX files, with their own test split
//   article                  the article's generated set, with fresh test samples
//   csv:PATH[:label=COLUMN][:target=class|float]
//                            one sample per row; the target column by header name or 0-based
//                            index (negative from the end; default 0, the first), holding class
//                            labels (default) or float values (regression)
//   npy:FEATURES[,LABELS]    an integer LABELS file gives classes, a float32/float64 one (N) or
//                            (N, K) regression targets; without LABELS the last column is the label
//   images:DIR               class folders; DIR/train and DIR/test when both exist; DIR/train
//                            (or DIR/test) alone when it is DIR's only folder
//   tokens:PATH[:chars|:u16][:vocab=N][:context=T]
//                            token windows for next-token prediction (data/token_window_dataset.h):
//                            a text file as bytes (vocabulary 256), as characters (:chars, the
//                            file's distinct UTF-8 code points, sorted), nanoGPT's raw uint16 .bin
//                            (:u16) or llm.c's .bin (recognised by its magic); vocab=N for the
//                            .bin files (default: largest id + 1). The context T is the option or
//                            DataSpecOptions::context. The split is by position: the last
//                            test_share of the tokens validates (or all of test_data, a tokens:
//                            spec of its own, read with the training file's vocabulary).
// Options follow the path as ":key=value" and are read from the end, so a path may hold ':'
// (only a tail like ":label=x" is taken as an option).
//
// Throws kiln::Error naming the spec and the accepted forms, or the data's own error; with
// test_data, also when the two sources' samples or targets do not match.
DataSplits open_data(const std::string& spec, const DataSpecOptions& options = {});

// The files a data spec reads by name (csv's PATH, npy's FEATURES and LABELS, tokens' PATH), for
// the checks that an output is none of them; the folders of fashion-mnist and images are not
// listed. Throws kiln::Error for a malformed csv spec, as open_data would.
std::vector<std::string> data_spec_files(const std::string& spec);

}  // namespace kiln
