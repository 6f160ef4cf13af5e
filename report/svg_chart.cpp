// svg_line_chart and svg_stacked_bars (report/svg_chart.h): one fixed layout (plot area, axes with
// about five round ticks, a legend on the right), colours from one palette in series order.
#include "kiln/report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kiln/report/html.h"

namespace kiln {

namespace {

constexpr double kWidth = 520, kHeight = 260;
constexpr double kLeft = 64, kRight = 150, kTop = 30, kBottom = 44;
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

const char* colour(std::size_t i) { return kPalette[i % std::size(kPalette)]; }

std::string number(double v) { return fmt::format("{:.4g}", v); }

struct Range {
  double lo = 0, hi = 1;
  double at(double v, double from, double length) const {
    return from + (v - lo) / (hi - lo) * length;
  }
};

// A range around [lo, hi] with round ends, and its ticks (about five).
std::vector<double> round_ticks(Range& r) {
  if (!(r.hi > r.lo)) r = {r.lo - 0.5, r.lo + 0.5};
  const double raw = (r.hi - r.lo) / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  r = {std::floor(r.lo / step) * step, std::ceil(r.hi / step) * step};
  std::vector<double> ticks;
  for (double t = r.lo; t <= r.hi + step / 2; t += step)
    ticks.push_back(std::abs(t) < step / 1e6 ? 0 : t);
  return ticks;
}

// The frame: title, axes, y ticks and grid, x ticks (at most ~12) labelled `x` at `positions`.
std::string frame(const std::string& title, const std::string& x_label, const std::string& y_label,
                  const Range& xr, const std::vector<double>& positions,
                  const std::vector<double>& x, const Range& yr,
                  const std::vector<double>& y_ticks) {
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "role=\"img\">\n"
      "<title>{}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
      "<text x=\"{}\" y=\"18\" font-size=\"14\" font-weight=\"bold\">{}</text>\n",
      kWidth, kHeight, kWidth, kHeight, html_escape(title), kLeft, html_escape(title));
  for (const double t : y_ticks) {
    const double y = yr.at(t, kTop + kPlotH, -kPlotH);
    s += fmt::format(
        "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#eee\"/>"
        "<text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n",
        kLeft, kLeft + kPlotW, y, y, kLeft - 6, y + 4, number(t));
  }
  const std::size_t every = std::max<std::size_t>(1, (x.size() + 11) / 12);
  for (std::size_t i = 0; i < x.size(); i += every)
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n",
        xr.at(positions[i], kLeft, kPlotW), kTop + kPlotH + 16, number(x[i]));
  s += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>\n", kLeft,
      kTop, kPlotW, kPlotH);
  s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{}</text>\n",
                   kLeft + kPlotW / 2, kHeight - 8, html_escape(x_label));
  s += fmt::format(
      "<text transform=\"translate(14 {}) rotate(-90)\" font-size=\"12\" "
      "text-anchor=\"middle\">{}</text>\n",
      kTop + kPlotH / 2, html_escape(y_label));
  return s;
}

std::string legend_entry(std::size_t i, const std::string& name) {
  const double y = kTop + 8 + 18.0 * static_cast<double>(i);
  return fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
      "<text x=\"{}\" y=\"{}\" font-size=\"12\">{}</text>\n",
      kLeft + kPlotW + 12, y - 10, colour(i), kLeft + kPlotW + 30, y, html_escape(name));
}

std::size_t finite_count(const std::vector<double>& values) {
  return static_cast<std::size_t>(
      std::count_if(values.begin(), values.end(), [](double v) { return std::isfinite(v); }));
}

}  // namespace

std::string svg_line_chart(const LineChart& c) {
  Range xr{c.x.empty() ? 0 : c.x.front(), c.x.empty() ? 1 : c.x.back()};
  if (!(xr.hi > xr.lo)) xr = {xr.lo - 0.5, xr.lo + 0.5};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const ChartSeries& s : c.series)
    for (const double v : s.values)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (c.y_from_zero) lo = std::min(lo, 0.0);
  Range yr{lo, hi};
  const std::vector<double> ticks = round_ticks(yr);
  std::string s = frame(c.title, c.x_label, c.y_label, xr, c.x, c.x, yr, ticks);
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    const ChartSeries& series = c.series[k];
    std::string path, points;
    bool pen_down = false;
    for (std::size_t i = 0; i < c.x.size() && i < series.values.size(); ++i) {
      const double v = series.values[i];
      if (!std::isfinite(v)) {
        pen_down = false;
        continue;
      }
      const double px = xr.at(c.x[i], kLeft, kPlotW), py = yr.at(v, kTop + kPlotH, -kPlotH);
      path += fmt::format("{}{:.1f},{:.1f} ", pen_down ? "L" : "M", px, py);
      pen_down = true;
      points += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{} at {}: "
          "{}</title></circle>",
          px, py, colour(k), html_escape(series.name), number(c.x[i]), number(v));
    }
    s += fmt::format(
        "<g class=\"series\" data-series=\"{}\" data-points=\"{}\">"
        "<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>{}</g>\n",
        html_escape(series.name), finite_count(series.values), path, colour(k), points);
    s += legend_entry(k, series.name);
  }
  return s + "</svg>\n";
}

std::string svg_stacked_bars(const StackedBars& c) {
  const std::size_t n = c.x.size();
  // Bars sit in equal slots; the x "range" maps slot i's centre.
  const Range xr{-0.5, static_cast<double>(n) - 0.5};
  std::vector<double> totals(n, 0.0);
  for (const ChartSeries& s : c.series)
    for (std::size_t i = 0; i < n && i < s.values.size(); ++i)
      if (std::isfinite(s.values[i])) totals[i] += std::max(0.0, s.values[i]);
  Range yr{
      0, std::max(c.y_max, totals.empty() ? 1.0 : *std::max_element(totals.begin(), totals.end()))};
  const std::vector<double> ticks = round_ticks(yr);
  std::vector<double> slots(n);
  for (std::size_t i = 0; i < n; ++i) slots[i] = static_cast<double>(i);
  std::string s = frame(c.title, c.x_label, c.y_label, xr, slots, c.x, yr, ticks);
  const double bar_w = kPlotW / std::max<double>(1, static_cast<double>(n)) * 0.7;
  std::vector<double> base(n, 0.0);
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    const ChartSeries& series = c.series[k];
    std::string bars;
    for (std::size_t i = 0; i < n && i < series.values.size(); ++i) {
      const double v = series.values[i];
      if (!std::isfinite(v)) continue;
      const double top = yr.at(base[i] + std::max(0.0, v), kTop + kPlotH, -kPlotH);
      const double bottom = yr.at(base[i], kTop + kPlotH, -kPlotH);
      bars += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
          "<title>{} at {}: {}</title></rect>",
          xr.at(slots[i], kLeft, kPlotW) - bar_w / 2, top, bar_w, bottom - top, colour(k),
          html_escape(series.name), number(c.x[i]), number(v));
      base[i] += std::max(0.0, v);
    }
    s += fmt::format("<g class=\"series\" data-series=\"{}\" data-points=\"{}\">{}</g>\n",
                     html_escape(series.name), finite_count(series.values), bars);
    s += legend_entry(k, series.name);
  }
  return s + "</svg>\n";
}

}  // namespace kiln
