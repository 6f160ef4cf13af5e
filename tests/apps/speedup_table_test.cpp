#include <gtest/gtest.h>

#include "kiln/apps/reporting/speedup_table.h"

TEST(SpeedupTable, ShowsTheArticleRowsWithTheir160EpochTimes) {
  auto rows = kiln::article_rows();
  rows.push_back({"CPU, 2 threads (this machine)", 12.5, false, "measured"});
  const std::string md = kiln::speedup_markdown(rows);
  EXPECT_NE(md.find("| laptop CPU (i7, 4 cores) [article] | 1474.0 | 3 days | 1.0x |"), std::string::npos) << md;
  EXPECT_NE(md.find("| GTX 1080 Ti [article] | 36.0 | 1 h 36 min | 40.9x |"), std::string::npos) << md;
  EXPECT_NE(md.find("| CPU, 2 threads (this machine) | 12.5 | 33 min | 117.9x | measured |"), std::string::npos) << md;
  const std::string csv = kiln::speedup_csv(rows);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "device,epoch_seconds,seconds_for_160_epochs,speedup_vs_slowest,from_article,note");
  EXPECT_NE(csv.find("\"GT 750M (laptop GPU) [article]\",403.000,64480.0,3.658,1,\"\""), std::string::npos) << csv;
  const std::string svg = kiln::speedup_svg(rows);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("12.5 s"), std::string::npos);
}

TEST(SpeedupTable, FormatsDurationsAsPeopleSayThem) {
  EXPECT_EQ(kiln::format_duration(1474.0 * 160), "3 days");
  EXPECT_EQ(kiln::format_duration(1.5 * 86400), "1.5 days");
  EXPECT_EQ(kiln::format_duration(403.0 * 160), "17 h 54 min");
  EXPECT_EQ(kiln::format_duration(3 * 86400.0), "3 days");
  EXPECT_EQ(kiln::format_duration(36.0 * 160), "1 h 36 min");
  EXPECT_EQ(kiln::format_duration(90.0), "2 min");
  EXPECT_EQ(kiln::format_duration(7.25), "7.2 s");
}
