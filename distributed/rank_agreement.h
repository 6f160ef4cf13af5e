// What the ranks of a data-parallel job must agree on before any work: each rank gives the same
// list of named settings ("TrainerOptions::bucket_mb", "25"), every rank's values are gathered on
// every rank, and a difference throws RanksDisagree on every rank, naming each differing setting
// with each rank's value. Every rank throws at the same collective, so no rank waits on another
// and the job can end without an abort; only the reporting rank (0) need print the message.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kiln/core/error.h"

namespace kiln {

class Communicator;

class RanksDisagree : public Error {
 public:
  RanksDisagree(std::string message, std::string where, int rank)
      : Error(std::move(message), std::move(where)), rank_(rank) {}
  // The rank that threw it; the same message is thrown on every rank, so rank 0 prints it.
  int rank() const noexcept { return rank_; }
  bool reported_here() const noexcept { return rank_ == 0; }

 private:
  int rank_;
};

using NamedSetting = std::pair<std::string, std::string>;

// Every rank's `settings`, indexed [rank][setting], on every rank (one rank alone: its own).
std::vector<std::vector<NamedSetting>> settings_of_every_rank(
    const std::vector<NamedSetting>& settings, Communicator& comm);

// Throws RanksDisagree when the ranks' settings differ:
// "{what}: TrainerOptions::bucket_mb (rank 0: 1, rank 1: 25), ...; {fix}".
void check_ranks_agree(const std::vector<NamedSetting>& settings, Communicator& comm,
                       const std::string& what, const std::string& fix);

}  // namespace kiln
