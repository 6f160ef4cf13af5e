#include <gtest/gtest.h>

#include <cstdio>

#include "apps/reporting/speedup_table.h"
#include "kiln/core/output_file.h"
#include "tests/support/headless_chromium.h"

TEST(SpeedupTable, ShowsTheArticleRowsWithTheir160EpochTimes) {
  auto rows = kiln::article_rows();
  rows.push_back({"CPU, 2 threads (this machine)", 12.5, false, "measured"});
  const std::string md = kiln::speedup_markdown(rows);
  EXPECT_NE(md.find("| laptop CPU (i7, 4 cores) [article] | 1474.0 | 3 days | 1.0x |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| GTX 1080 Ti [article] | 36.0 | 1 h 36 min | 40.9x |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| CPU, 2 threads (this machine) | 12.5 | 33 min | 117.9x | measured |"),
            std::string::npos)
      << md;
  const std::string csv = kiln::speedup_csv(rows);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "device,epoch_seconds,seconds_for_160_epochs,speedup_vs_slowest,from_article,note");
  EXPECT_NE(csv.find("\"GT 750M (laptop GPU) [article]\",403.000,64480.0,3.658,1,\"\""),
            std::string::npos)
      << csv;
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

TEST(SpeedupTable, HtmlPageOpensInChromiumWithABarPerRow) {
  KILN_SKIP_WITHOUT_CHROMIUM();
  auto rows = kiln::article_rows();
  rows.push_back({"CPU <2 threads> & \"fast\"", 12.5, false, "measured"});
  const std::string path =
      ::testing::TempDir() + "kiln_speedup_" + std::to_string(getpid()) + ".html";
  kiln::write_output_file(path, kiln::speedup_html(rows), "the");
  const kiln::testing::BrowserView view = kiln::testing::open_in_chromium(path, 1000, 600);
  ASSERT_EQ(view.exit_code, 0) << view.console;
  EXPECT_EQ(view.console, "") << "the page's console (script errors land there)";
  EXPECT_NE(view.dom.find("data-rendered=\"1 charts, 1 series\""), std::string::npos) << view.dom;
  EXPECT_EQ(kiln::testing::chart_series(view.dom),
            (std::vector<std::pair<std::string, int>>{{"seconds per epoch", 4}}));
  EXPECT_NE(view.dom.find("<td>CPU &lt;2 threads&gt; &amp; \"fast\"</td>"), std::string::npos)
      << view.dom;
  EXPECT_TRUE(kiln::testing::is_png(view.screenshot, 5000)) << view.screenshot;
  std::remove(path.c_str());
  std::remove(view.screenshot.c_str());
}
