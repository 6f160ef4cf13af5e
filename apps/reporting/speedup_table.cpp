#include "apps/reporting/speedup_table.h"

#include "kiln/report/html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kiln {

namespace {
constexpr int kArticleEpochs = 160;

double slowest(const std::vector<SpeedupRow>& rows) {
  double s = 0;
  for (const auto& r : rows) s = std::max(s, r.epoch_seconds);
  return s;
}

}  // namespace

std::vector<SpeedupRow> article_rows() {
  return {{"laptop CPU (i7, 4 cores) [article]", 1474, true, ""},
          {"GT 750M (laptop GPU) [article]", 403, true, ""},
          {"GTX 1080 Ti [article]", 36, true, ""}};
}

std::string format_duration(double s) {
  if (s >= 2 * 86400) return fmt::format("{:.0f} days", s / 86400);
  if (s >= 86400) return fmt::format("{:.1f} days", s / 86400);
  if (s >= 3600)
    return fmt::format("{} h {} min", static_cast<int>(s / 3600),
                       static_cast<int>(std::fmod(s, 3600) / 60));
  if (s >= 60) return fmt::format("{:.0f} min", s / 60);
  return fmt::format("{:.1f} s", s);
}

std::string speedup_markdown(const std::vector<SpeedupRow>& rows) {
  const double base = slowest(rows);
  std::string t =
      "| device | s / epoch (160k samples) | 160 epochs | speedup vs slowest | note |\n"
      "| --- | ---: | ---: | ---: | --- |\n";
  for (const auto& r : rows)
    t += fmt::format("| {} | {:.1f} | {} | {:.1f}x | {} |\n", r.device, r.epoch_seconds,
                     format_duration(r.epoch_seconds * kArticleEpochs), base / r.epoch_seconds,
                     r.note);
  return t;
}

std::string speedup_csv(const std::vector<SpeedupRow>& rows) {
  std::string t =
      "device,epoch_seconds,seconds_for_160_epochs,speedup_vs_slowest,from_article,note\n";
  const double base = slowest(rows);
  for (const auto& r : rows)
    t += fmt::format("\"{}\",{:.3f},{:.1f},{:.3f},{},\"{}\"\n", r.device, r.epoch_seconds,
                     r.epoch_seconds * kArticleEpochs, base / r.epoch_seconds,
                     r.from_article ? 1 : 0, r.note);
  return t;
}

std::string speedup_svg(const std::vector<SpeedupRow>& rows) {
  // Horizontal bars, log10 scale from 0.1 s to the slowest row, article rows in grey.
  const int label_w = 330, bar_w = 420, row_h = 28, top = 40;
  const int height = top + row_h * static_cast<int>(rows.size()) + 30;
  const double lo = std::log10(0.1), hi = std::log10(std::max(10.0, slowest(rows)) * 1.5);
  auto x_of = [&](double s) {
    return label_w + bar_w * (std::log10(std::max(s, 0.1)) - lo) / (hi - lo);
  };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\" "
      "font-size=\"13\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"10\" y=\"22\" font-size=\"15\">Seconds per epoch of the article workload (log "
      "scale)</text>\n",
      label_w + bar_w + 90, height);
  // One series, a bar per row: what a page's test (or script) counts.
  svg += fmt::format("<g data-series=\"seconds per epoch\" data-points=\"{}\">\n", rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const int y = top + row_h * static_cast<int>(i);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", label_w - 8,
                       y + 17, html_escape(r.device));
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>\n",
                       label_w, y + 4, x_of(r.epoch_seconds) - label_w, row_h - 8,
                       r.from_article ? "#9e9e9e" : "#d9541e");
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{:.1f} s</text>\n", x_of(r.epoch_seconds) + 5,
                       y + 17, r.epoch_seconds);
  }
  svg += "</g>\n</svg>\n";
  return svg;
}

std::string speedup_html(const std::vector<SpeedupRow>& rows) {
  const double base = slowest(rows);
  std::string body =
      "<h1>kiln bench: CPU vs GPU on the article workload</h1>\n"
      "<p class=\"note\">Seconds per 160,000-sample epoch of the 5-layer network, the time 160 "
      "epochs take, and the speedup over the slowest row; the article's rows in grey.</p>\n";
  body += "<figure>" + speedup_svg(rows) + "</figure>\n";
  body +=
      "<table>\n<tr><th>device</th><th>s / epoch</th><th>160 "
      "epochs</th><th>speedup</th><th>note</th></tr>\n";
  for (const SpeedupRow& r : rows)
    body += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{:.1f}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{:.1f}x</td><td>{}</td></tr>\n",
        html_escape(r.device), r.epoch_seconds,
        html_escape(format_duration(r.epoch_seconds * kArticleEpochs)), base / r.epoch_seconds,
        html_escape(r.note));
  body += "</table>\n" + html_rendered_marker();
  return html_document({"kiln bench: speedup", "", body, ""});
}

}  // namespace kiln
