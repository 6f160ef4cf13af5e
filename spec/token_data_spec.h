// The tokens: word of the data spec language (spec/data_spec.h lists its form): its parsing and
// its train and validation windows, split by position.
#pragma once

#include <string>

#include "kiln/data/token_file.h"
#include "kiln/spec/data_spec.h"

namespace kiln {

struct TokenSource {
  std::string path;
  TokenFileOptions file;
  std::int64_t context = 0;  // 0: not given
};

// tokens:PATH[:chars|:u16][:vocab=N][:context=T], the argument after "tokens:". Options are
// peeled off the end, so that the path may hold ':'. Throws kiln::Error naming the accepted form.
TokenSource parse_token_source(std::string argument);

// The train windows (random, DataSpecOptions::seed) and the validation windows (in order): the
// last test_share of the tokens, or all of DataSpecOptions::test_data (a tokens: spec).
DataSplits token_splits(const std::string& argument, const DataSpecOptions& options);

}  // namespace kiln
