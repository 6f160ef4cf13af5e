// The options a spec takes after its path, ":key=value" or ":word": one lexer for every spec
// that has them (csv:, tokens:). Peeled off the end, so that the path itself may hold ':'.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

struct SpecOption {
  std::string text;                  // as written, without its ':'
  std::string key;                   // before '=', or the whole word
  std::optional<std::string> value;  // after '='; none for a word
};

// Peels the options off the end of `argument`, leaving the path, and returns them last first.
// A suffix is an option when its key is of a-z, 0-9 and '_' and it has a value or is one of
// `words`; the first suffix from the end that is not one, and all before it, are the path.
std::vector<SpecOption> peel_spec_options(std::string& argument,
                                          std::initializer_list<std::string_view> words);

}  // namespace kiln
