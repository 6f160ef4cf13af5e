// peel_spec_options: the one lexer of the specs' ":key=value" and ":word" suffixes
// (spec/spec_options.h).
#include "kiln/spec/spec_options.h"

#include <algorithm>

namespace kiln {

std::vector<SpecOption> peel_spec_options(std::string& argument,
                                          std::initializer_list<std::string_view> words) {
  std::vector<SpecOption> options;
  for (;;) {
    const auto colon = argument.rfind(':');
    if (colon == std::string::npos) break;
    SpecOption option;
    option.text = argument.substr(colon + 1);
    const auto equals = option.text.find('=');
    option.key = option.text.substr(0, equals);
    if (option.key.empty() ||
        option.key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
      break;
    if (equals != std::string::npos)
      option.value = option.text.substr(equals + 1);
    else if (std::find(words.begin(), words.end(), option.key) == words.end())
      break;
    options.push_back(std::move(option));
    argument.erase(colon);
  }
  return options;
}

}  // namespace kiln
