// --workers auto end to end: the flag's values, a tuned run that trains exactly as the same run
// with the chosen count given explicitly, and the choice in the JSON log.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "apps/train/train_options.h"
#include "apps/train/workers_flag.h"
#include "tests/support/train_testing.h"

namespace {

kiln::TrainAppOptions tiny_run() {
  kiln::TrainAppOptions o = kiln::testing::small_article_run("mlp:784-16-10", 512, 64, 2);
  o.loader_tuning.batches = 3;
  return o;
}

std::string error_of(const std::string& value) {
  kiln::TrainAppOptions o;
  try {
    kiln::set_workers_flag(value, o);
  } catch (const kiln::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(WorkersFlag, TakesAutoOrANumberAndRefusesAnythingElse) {
  kiln::TrainAppOptions o;
  kiln::set_workers_flag("auto", o);
  EXPECT_TRUE(o.workers_auto);
  kiln::set_workers_flag("3", o);
  EXPECT_FALSE(o.workers_auto);
  EXPECT_EQ(o.workers, 3);
  for (const std::string bad : {"fast", "", "2x", "-"}) {
    const std::string message = error_of(bad);
    EXPECT_NE(message.find("--workers takes a number of loader threads"), std::string::npos) << bad;
    EXPECT_NE(message.find("or auto"), std::string::npos) << message;
    EXPECT_NE(message.find("'" + bad + "'"), std::string::npos) << message;
  }
}

TEST(WorkersFlag, AutoTunesPinnedMemoryOnlyOnAGpuWithoutPinMemory) {
  kiln::TrainAppOptions o;
  EXPECT_FALSE(kiln::loader_tuning_of(o, kiln::Device::cpu()).has_value());
  o.workers_auto = true;
  EXPECT_FALSE(kiln::loader_tuning_of(o, kiln::Device::cpu())->pin_memory);
  EXPECT_TRUE(kiln::loader_tuning_of(o, kiln::Device::cuda(0))->pin_memory);
  o.pin_memory = true;
  EXPECT_FALSE(kiln::loader_tuning_of(o, kiln::Device::cuda(0))->pin_memory);  // stays on, untried
}

TEST(WorkersAuto, TrainsExactlyAsTheChosenWorkerCountGivenExplicitly) {
  kiln::TrainAppOptions tuned = tiny_run();
  tuned.workers_auto = true;
  tuned.log_json = ::testing::TempDir() + "kiln_workers_auto.json";
  std::filesystem::remove(tuned.log_json);
  std::ostringstream out;
  const kiln::TrainResult automatic = kiln::train(tuned, out);
  ASSERT_EQ(automatic.epochs.size(), 2u);
  ASSERT_TRUE(automatic.epochs[0].loader_tuning.has_value());
  const kiln::LoaderTuning& tuning = *automatic.epochs[0].loader_tuning;
  EXPECT_EQ(automatic.epochs[1].workers, tuning.chosen.setting.workers);

  kiln::TrainAppOptions explicit_run = tiny_run();
  explicit_run.workers = tuning.chosen.setting.workers;
  const kiln::TrainResult given = kiln::train(explicit_run, out);
  for (std::size_t e = 0; e < 2; ++e) {
    EXPECT_EQ(automatic.epochs[e].train_loss, given.epochs[e].train_loss) << "epoch " << e + 1;
    EXPECT_EQ(automatic.epochs[e].test_loss, given.epochs[e].test_loss) << "epoch " << e + 1;
    EXPECT_FALSE(given.epochs[e].loader_tuning.has_value());
  }

  std::ifstream log(tuned.log_json);
  std::string line;
  ASSERT_TRUE(std::getline(log, line));
  const nlohmann::json j = nlohmann::json::parse(line);
  ASSERT_TRUE(j.contains("loader_tuning")) << line;
  const nlohmann::json& t = j["loader_tuning"];
  EXPECT_EQ(t["automatic"], true);
  EXPECT_EQ(t["workers"], tuning.chosen.setting.workers);
  EXPECT_EQ(t["pin_memory"], false);
  EXPECT_EQ(t["batches_per_trial"], 3);
  ASSERT_EQ(t["trials"].size(), tuning.trials.size());
  for (const nlohmann::json& trial : t["trials"])
    EXPECT_GT(trial["samples_per_second"].get<double>(), 0.0);
  EXPECT_EQ(j["workers"], tuning.chosen.setting.workers);
}
