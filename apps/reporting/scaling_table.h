// Data-parallel scaling: samples/s of one short training job run as 1, 2, ... ranks by mpirun,
// beside the speedup and efficiency over one rank. Each size is a fresh `mpirun -np k train ...`
// whose rank 0 logs the epoch as a JSON line; bench --scaling prints and writes the table.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace kiln {

struct ScalingJob {
  std::string mpirun = "mpirun";
  std::vector<std::string> mpirun_args;  // e.g. --oversubscribe
  std::string train;                     // path of the train app
  std::vector<std::string> train_args;   // the job, the same for every size
  std::string work_dir;                  // logs: scaling-<k>.log and scaling-<k>.jsonl
};

struct ScalingRow {
  int ranks = 1;
  double samples_per_s = 0;
  double allreduce_percent = 0;  // of the epoch's wall time
  double data_wait_percent = 0;
};

// The shell command that runs the job as `ranks` ranks (also printed under the table).
std::string scaling_command(const ScalingJob& job, int ranks);
// Runs it; throws kiln::Error with the end of the job's log when it fails.
ScalingRow measure_scaling(const ScalingJob& job, int ranks);
// Measures every size in turn, printing a line for each to `out` as it finishes.
std::vector<ScalingRow> measure_scaling(const ScalingJob& job, const std::vector<int>& sizes,
                                        std::ostream& out);
// | ranks | samples/s | speedup | efficiency | all-reduce | data wait |
std::string scaling_markdown(const std::vector<ScalingRow>& rows);

// bench --scaling: the article workload on CPUs (network and data of the article, one epoch of
// `samples`, global batch `batch_size`, `threads` compute threads per rank) at each size; prints
// the table with the commands that made it and writes it to work_dir/scaling.md.
ScalingJob article_scaling_job(const std::string& train, std::int64_t samples,
                               std::int64_t batch_size, int workers, int threads,
                               const std::string& work_dir);
std::vector<ScalingRow> run_scaling_bench(const ScalingJob& job, const std::vector<int>& sizes,
                                          std::ostream& out);

}  // namespace kiln
