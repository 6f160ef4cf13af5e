// Rank agreement (distributed/rank_agreement.h). The settings travel as text through the one
// collective every Communicator has for host values, all_reduce_host on doubles: each rank writes
// its bytes (exact in a double) into its own slot of a zeroed buffer and a sum fills every slot.
#include "kiln/distributed/rank_agreement.h"

#include <fmt/format.h>

#include <algorithm>

#include "kiln/distributed/communicator.h"

namespace kiln {

namespace {

// Unit and record separators: they appear in no setting's name or value of a spec or number.
constexpr char kBetween = '\x1f', kAfter = '\x1e';

std::string serialize(const std::vector<NamedSetting>& settings) {
  std::string text;
  for (const auto& [name, value] : settings) text += name + kBetween + value + kAfter;
  return text;
}

std::vector<NamedSetting> deserialize(const std::string& text) {
  std::vector<NamedSetting> settings;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(kAfter, at), text.size());
    const std::string record = text.substr(at, end - at);
    const std::size_t between = record.find(kBetween);
    settings.emplace_back(record.substr(0, between),
                          between == std::string::npos ? "" : record.substr(between + 1));
    at = end + 1;
  }
  return settings;
}

std::vector<std::string> text_of_every_rank(const std::string& mine, Communicator& comm) {
  const int world = comm.world_size();
  if (world == 1) return {mine};
  double longest = static_cast<double>(mine.size());
  comm.all_reduce_host(std::span<double>(&longest, 1), CollectiveOp::max);
  const auto width = static_cast<std::size_t>(longest);
  std::vector<double> slots(width * static_cast<std::size_t>(world), 0.0);
  double* own = slots.data() + width * static_cast<std::size_t>(comm.rank());
  for (std::size_t i = 0; i < mine.size(); ++i) own[i] = static_cast<unsigned char>(mine[i]);
  comm.all_reduce_host(slots, CollectiveOp::sum);
  std::vector<std::string> texts(static_cast<std::size_t>(world));
  for (std::size_t r = 0; r < texts.size(); ++r)
    for (std::size_t i = 0; i < width && slots[r * width + i] != 0.0; ++i)
      texts[r] += static_cast<char>(static_cast<unsigned char>(slots[r * width + i]));
  return texts;
}

}  // namespace

std::vector<std::vector<NamedSetting>> settings_of_every_rank(
    const std::vector<NamedSetting>& settings, Communicator& comm) {
  std::vector<std::vector<NamedSetting>> all;
  for (const std::string& text : text_of_every_rank(serialize(settings), comm))
    all.push_back(deserialize(text));
  return all;
}

void check_ranks_agree(const std::vector<NamedSetting>& settings, Communicator& comm,
                       const std::string& what, const std::string& fix) {
  if (comm.world_size() == 1) return;
  const std::vector<std::vector<NamedSetting>> all = settings_of_every_rank(settings, comm);
  std::vector<std::string> differences;
  for (std::size_t i = 0; i < settings.size(); ++i) {
    auto value_on = [&](std::size_t rank) -> std::string {
      const auto& theirs = all[rank];
      if (i >= theirs.size() || theirs[i].first != settings[i].first) return "(not given)";
      return theirs[i].second.empty() ? "(none)" : theirs[i].second;
    };
    bool same = true;
    for (std::size_t r = 1; r < all.size(); ++r) same = same && value_on(r) == value_on(0);
    if (same) continue;
    std::vector<std::string> values;
    for (std::size_t r = 0; r < all.size(); ++r)
      values.push_back(fmt::format("rank {}: {}", r, value_on(r)));
    differences.push_back(fmt::format("{} ({})", settings[i].first, fmt::join(values, ", ")));
  }
  if (!differences.empty())
    throw RanksDisagree(fmt::format("{}: {}; {}", what, fmt::join(differences, ", "), fix),
                        fmt::format("{}:{}", __FILE__, __LINE__), comm.rank());
}

}  // namespace kiln
