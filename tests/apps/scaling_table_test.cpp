// The scaling table: the command it runs, reading rank 0's JSON line back (through a stand-in for
// mpirun), a failed run reported with its log, and speedup and efficiency over one rank.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "apps/reporting/scaling_table.h"
#include "kiln/core/error.h"

namespace {

// A stand-in for mpirun: finds "-np K" and "--log-json FILE" and writes one JSON line whose
// samples/s is 1000 * K * 0.9 (90 % efficiency), or fails when K is 3.
kiln::ScalingJob fake_job(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "kiln_scaling_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string script = dir + "/fake-mpirun.sh";
  std::ofstream(script) << R"(#!/bin/sh
k=1; json=
while [ $# -gt 0 ]; do
  case $1 in -np) k=$2; shift ;; --log-json) json=$2; shift ;; esac
  shift
done
if [ "$k" = 3 ]; then echo "rank 2 of 3: something broke" >&2; exit 1; fi
echo "{\"samples_per_second\": $((900 * k)), \"stages\": {\"all-reduce\": {\"percent\": 4.5}, \"data wait\": {\"percent\": 1.5}}}" > "$json"
)";
  kiln::ScalingJob job;
  job.mpirun = "sh";
  job.mpirun_args = {script};
  job.train = "train";
  job.train_args = {"--device=cpu", "--samples", "1280"};
  job.work_dir = dir;
  return job;
}

}  // namespace

TEST(ScalingTable, CommandRunsTheSameJobAtEachSize) {
  const kiln::ScalingJob job = fake_job("command");
  const std::string c = kiln::scaling_command(job, 2);
  EXPECT_NE(c.find("-np 2 'train' '--device=cpu' '--samples' '1280'"), std::string::npos) << c;
}

TEST(ScalingTable, ReadsRankZerosJsonLineAndComputesSpeedupAndEfficiency) {
  const kiln::ScalingJob job = fake_job("rows");
  std::ostringstream out;
  const auto rows = kiln::measure_scaling(job, {1, 2, 4}, out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].ranks, 2);
  EXPECT_DOUBLE_EQ(rows[1].samples_per_s, 1800.0);
  EXPECT_DOUBLE_EQ(rows[2].allreduce_percent, 4.5);
  const std::string table = kiln::scaling_markdown(rows);
  EXPECT_NE(table.find("| 4 | 3600 | 4.00 x | 100 % | 4.5 % | 1.5 % |"), std::string::npos)
      << table;
  EXPECT_NE(out.str().find("2 ranks: 1800 samples/s"), std::string::npos) << out.str();
}

TEST(ScalingTable, AFailedRunIsReportedWithTheEndOfItsLog) {
  const kiln::ScalingJob job = fake_job("failure");
  try {
    kiln::measure_scaling(job, 3);
    FAIL() << "expected an error";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("something broke"), std::string::npos) << e.what();
  }
}
