// run_report_html (report/run_report_page.h): each chart's series are columns of the epochs'
// reports; every text that a user or the data can set is escaped (report/html.h).
#include "kiln/report/run_report_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "kiln/report/html.h"
#include "kiln/report/svg_chart.h"

namespace kiln {

namespace {

using Column = std::function<double(const EpochReport&)>;

ChartSeries column(const std::string& name, const std::vector<EpochReport>& epochs,
                   const Column& of) {
  ChartSeries series{name, {}};
  for (const EpochReport& r : epochs) series.values.push_back(of(r));
  return series;
}

bool any_finite(const ChartSeries& s) {
  return std::any_of(s.values.begin(), s.values.end(), [](double v) { return std::isfinite(v); });
}

std::vector<double> epoch_numbers(const std::vector<EpochReport>& epochs) {
  std::vector<double> x;
  for (const EpochReport& r : epochs) x.push_back(static_cast<double>(r.epoch));
  return x;
}

// Series that have a point at all: a run without a test split draws no empty test line.
std::vector<ChartSeries> measured(std::vector<ChartSeries> series) {
  series.erase(std::remove_if(series.begin(), series.end(),
                              [](const ChartSeries& s) { return !any_finite(s); }),
               series.end());
  return series;
}

std::string figure(const std::string& svg) { return "<figure>" + svg + "</figure>\n"; }

std::string curves(const RunReportContent& c, const std::vector<double>& x) {
  const auto& e = c.epochs;
  std::string html = "<h2>Curves</h2>\n<div class=\"charts\">\n";
  html +=
      figure(svg_line_chart({"Loss", "epoch", "mean loss", x,
                             measured({column("train", e, [](auto& r) { return r.train_loss; }),
                                       column("test", e, [](auto& r) { return r.test_loss; })})}));
  const auto accuracy =
      measured({column("train", e, [](auto& r) { return 100 * r.train_accuracy; }),
                column("test", e, [](auto& r) { return 100 * r.test_accuracy; })});
  if (!accuracy.empty()) html += figure(svg_line_chart({"Accuracy", "epoch", "%", x, accuracy}));
  html += figure(svg_line_chart({"Throughput",
                                 "epoch",
                                 "samples/s",
                                 x,
                                 {column("samples/s", e, [](auto& r) { return r.samples_per_s; })},
                                 true}));
  html += figure(svg_line_chart({"Learning rate",
                                 "epoch",
                                 "lr (end of epoch)",
                                 x,
                                 {column("lr", e, [](auto& r) { return r.lr; })},
                                 true}));
  return html + "</div>\n";
}

std::string stage_shares(const RunReportContent& c, const std::vector<double>& x) {
  std::vector<ChartSeries> series;
  for (std::size_t i = 0; i < kStageCount; ++i) {
    const Stage s = static_cast<Stage>(i);
    ChartSeries share =
        column(std::string(stage_name(s)), c.epochs, [s](auto& r) { return r.stage_percent(s); });
    const bool optional_stage =
        s == Stage::graph || s == Stage::allreduce;  // as in the stage table
    if (!optional_stage ||
        std::any_of(share.values.begin(), share.values.end(), [](double v) { return v > 0; }))
      series.push_back(std::move(share));
  }
  series.push_back(column("other (host)", c.epochs, [](const EpochReport& r) {
    const double other = std::max(0.0, r.step_ms() - (r.stages.sum() - r.stages[Stage::copy]));
    return r.wall_s > 0 ? 100.0 * other / r.step_ms() : 0.0;
  }));
  std::string html = "<h2>Where the step's time goes</h2>\n";
  html +=
      "<p class=\"note\">Each stage's share of the epoch's wall time. Host-to-device copies run on "
      "their own "
      "stream beside the compute stages, so a bar can pass 100 %.</p>\n";
  return html + figure(svg_stacked_bars(
                    {"Stage shares per epoch", "epoch", "% of step time", x, series, 100}));
}

std::string memory(const RunReportContent& c, const std::vector<double>& x) {
  const auto& e = c.epochs;
  std::string html = "<h2>Memory</h2>\n<div class=\"charts\">\n";
  const auto positive = [](double v) { return v > 0 ? v : NAN; };
  const auto gpu =
      measured({column("in use", e, [&](auto& r) { return positive(r.gpu_memory_in_use_mib); }),
                column("peak", e, [&](auto& r) { return positive(r.gpu_memory_peak_mib); }),
                column("total", e, [&](auto& r) { return positive(r.gpu_memory_total_mib); })});
  if (!gpu.empty()) html += figure(svg_line_chart({"GPU memory", "epoch", "MiB", x, gpu, true}));
  const auto utilisation = measured({column("utilisation", e, [](auto& r) {
    return r.gpu_utilization_percent >= 0 ? r.gpu_utilization_percent : NAN;
  })});
  if (!utilisation.empty())
    html += figure(svg_line_chart({"GPU utilisation", "epoch", "%", x, utilisation, true}));
  ChartSeries host{"peak resident", c.host_peak_mib};
  host.values.resize(e.size(), NAN);
  html += figure(svg_line_chart({"Process memory (host)", "epoch", "MiB", x, {host}, true}));
  html += "</div>\n";
  if (gpu.empty() && !e.empty() && !e.back().on_gpu)
    html += "<p class=\"note\">Trained on the CPU: device memory is measured on GPUs only.</p>\n";
  return html;
}

std::string number_cell(double v, const char* format) {
  return std::isfinite(v)
             ? fmt::format(fmt::runtime(std::string("<td class=\"num\">") + format + "</td>"), v)
             : std::string("<td class=\"num\">-</td>");
}

std::string epoch_table(const RunReportContent& c) {
  std::string html =
      "<h2>Epochs</h2>\n<table>\n<tr><th>epoch</th><th>seconds</th><th>samples/s</th><th>train "
      "loss</th>"
      "<th>train acc %</th><th>test loss</th><th>test acc %</th><th>lr</th></tr>\n";
  for (const EpochReport& r : c.epochs)
    html += fmt::format("<tr><td class=\"num\">{}</td>", r.epoch) +
            number_cell(r.wall_s, "{:.2f}") + number_cell(r.samples_per_s, "{:.0f}") +
            number_cell(r.train_loss, "{:.4f}") + number_cell(100 * r.train_accuracy, "{:.2f}") +
            number_cell(r.test_loss, "{:.4f}") + number_cell(100 * r.test_accuracy, "{:.2f}") +
            number_cell(r.lr, "{:.4g}") + "</tr>\n";
  return html + "</table>\n";
}

std::string diagnosis(const RunReportContent& c) {
  std::string html = "<h2>Diagnosis</h2>\n";
  if (c.diagnosis.empty()) return html + "<p class=\"note\">After the first epoch.</p>\n";
  html += "<ul id=\"diagnosis\">\n";
  for (const std::string& line : c.diagnosis) html += "<li>" + html_escape(line) + "</li>\n";
  return html + "</ul>\n";
}

std::string settings(const RunReportContent& c) {
  std::string html = "<h2>Settings</h2>\n<table id=\"settings\">\n";
  for (const auto& [name, value] : c.settings)
    html += "<tr><th>" + html_escape(name) + "</th><td><code>" + html_escape(value) +
            "</code></td></tr>\n";
  html += "</table>\n";
  if (!c.model_structure.empty())
    html += "<details><summary>The model's structure</summary><p><code>" +
            html_escape(c.model_structure) + "</code></p></details>\n";
  return html;
}

std::string status(const RunReportContent& c) {
  const std::int64_t done = c.epochs.empty() ? 0 : c.epochs.back().epoch;
  const std::string of = c.planned_epochs > 0 ? fmt::format(" of {}", c.planned_epochs) : "";
  const std::string state =
      c.finished ? fmt::format("finished: {} epoch{}{}", done, done == 1 ? "" : "s", of)
                 : fmt::format("training: {} epoch{} done{}; this page reloads every {} s", done,
                               done == 1 ? "" : "s", of, c.reload_seconds);
  return "<p class=\"note\" id=\"status\">" +
         html_escape(c.device.empty() ? state : c.device + ", " + state) +
         (c.updated.empty() ? "" : "; updated " + html_escape(c.updated)) + "</p>\n";
}

// While the run goes on, reloads the page keeping the scroll position, which a meta refresh
// would lose.
constexpr const char* kReloadScript = R"(<script>
(function () {
  var body = document.body;
  var key = 'kiln-report-scroll';
  try {
    var y = window.sessionStorage.getItem(key);
    if (y !== null) window.scrollTo(0, Number(y));
  } catch (e) {}  // storage refused (a file: page in some browsers): reload at the top
  if (body.getAttribute('data-running') === 'true') {
    setTimeout(function () {
      try { window.sessionStorage.setItem(key, String(window.scrollY)); } catch (e) {}
      window.location.reload();
    }, Number(body.getAttribute('data-reload-seconds')) * 1000);
  }
})();
</script>
)";

}  // namespace

std::string run_report_html(const RunReportContent& c) {
  const std::vector<double> x = epoch_numbers(c.epochs);
  std::string body = "<h1>" + html_escape(c.title) + "</h1>\n" + status(c);
  if (!c.epochs.empty()) body += curves(c, x) + stage_shares(c, x) + memory(c, x);
  body += diagnosis(c) + settings(c);
  if (!c.epochs.empty()) body += epoch_table(c);
  body += kReloadScript + html_rendered_marker();
  // The body's attributes tell the script whether to reload, and how often.
  return html_document({c.title, "", body,
                        fmt::format(" data-running=\"{}\" data-reload-seconds=\"{}\"",
                                    c.finished ? "false" : "true", c.reload_seconds)});
}

}  // namespace kiln
