// Charts as inline SVG for kiln's HTML pages: a line chart of series over x (loss per epoch) and
// stacked bars (each stage's share of the step per epoch). Each series is one element carrying
// data-series (its name) and data-points (its points drawn), so a test, or a script, can count
// what a chart shows; each point has a <title> with its value, which a browser shows on hover.
#pragma once

#include <string>
#include <vector>

namespace kiln {

struct ChartSeries {
  std::string name;            // legend text (escaped here)
  std::vector<double> values;  // one per x; NaN: no point there (the line breaks)
};

struct LineChart {
  std::string title, x_label, y_label;
  std::vector<double> x;  // ascending
  std::vector<ChartSeries> series;
  bool y_from_zero = false;  // the y axis starts at 0 (rates, sizes) rather than at the data
};
std::string svg_line_chart(const LineChart& chart);

struct StackedBars {
  std::string title, x_label, y_label;
  std::vector<double> x;            // one bar per x
  std::vector<ChartSeries> series;  // stacked bottom up, in this order
  double y_max = 0;                 // at least this tall (100 for shares in %)
};
std::string svg_stacked_bars(const StackedBars& chart);

}  // namespace kiln
