// The article's CPU-vs-GPU table: epoch times of the article workload (the 5-layer network on
// 160,000 samples) measured here, beside the article's own — laptop CPU 1474 s, GT 750M 403 s,
// GTX 1080 Ti 36 s per epoch — with the time 160 epochs take and the speedup over the slowest
// row, as Markdown, CSV, an SVG bar chart on a log scale and an HTML page of both.
#pragma once

#include <string>
#include <vector>

namespace kiln {

struct SpeedupRow {
  std::string device;  // "laptop CPU (i7, 4 cores) [article]", "CPU, 2 threads", "NVIDIA H200"
  double epoch_seconds = 0;  // per 160,000-sample epoch
  bool from_article = false;
  std::string note;  // "extrapolated from 20,000 samples"
};

std::vector<SpeedupRow> article_rows();
// "3 days", "1 h 36 min", "41 min", "52 s".
std::string format_duration(double seconds);
std::string speedup_markdown(const std::vector<SpeedupRow>& rows);
std::string speedup_csv(const std::vector<SpeedupRow>& rows);
std::string speedup_svg(const std::vector<SpeedupRow>& rows);
// A self-contained page (report/html.h): the SVG inline and the table, for a browser.
std::string speedup_html(const std::vector<SpeedupRow>& rows);

}  // namespace kiln
