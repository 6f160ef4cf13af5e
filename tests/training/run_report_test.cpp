// The run report (training/run_report.h, report/run_report_page.h): the page escapes what a
// user sets, draws what was measured, is rewritten whole after each epoch, and opens in a real
// browser (headless Chromium: no script error, every chart with its series and their points).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "kiln/data/data_loader.h"
#include "kiln/data/tensor_dataset.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/models/presets.h"
#include "kiln/optim/sgd.h"
#include "kiln/report/html.h"
#include "kiln/training/run_report.h"
#include "kiln/training/trainer.h"
#include "tests/support/headless_chromium.h"

namespace {

using kiln::testing::chart_series;
using Series = std::vector<std::pair<std::string, int>>;

std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "kiln_report_" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

std::string text_of(const std::string& path) { return kiln::testing::detail::slurp(path); }

kiln::EpochReport epoch(std::int64_t n) {
  kiln::EpochReport r;
  r.epoch = n;
  r.wall_s = 2;
  r.samples_per_s = 1000 + 10 * n;
  r.train_loss = 1.0 / n, r.train_accuracy = 0.5 + 0.1 * n;
  r.stages[kiln::Stage::forward] = 500;
  r.stages[kiln::Stage::backward] = 900;
  return r;
}

std::shared_ptr<kiln::TensorDataset> line_points(int n) {
  std::vector<float> x;
  std::vector<std::int32_t> y;
  for (int i = 0; i < n; ++i) {
    x.push_back(static_cast<float>(i - n / 2) / 7.0f);
    y.push_back(i < n / 2 ? 0 : 1);
  }
  return std::make_shared<kiln::TensorDataset>(x, kiln::Shape{1}, y);
}

// Reads the page as it stands when each epoch ends (after the report, which was added first).
class PageReader : public kiln::TrainingObserver {
 public:
  explicit PageReader(std::string path) : path_(std::move(path)) {}
  void on_epoch_end(kiln::Trainer&, const kiln::EpochReport& r) override {
    const std::string page = text_of(path_);
    const std::string done =
        std::to_string(r.epoch) + (r.epoch == 1 ? " epoch done of 3" : " epochs done of 3");
    EXPECT_NE(page.find(done), std::string::npos) << page;
    EXPECT_NE(page.find("data-running=\"true\""), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(path_ + ".tmp")) << "written to a temporary, then renamed";
    ++pages;
  }
  int pages = 0;

 private:
  std::string path_;
};

const std::string kHostileTitle = "<img src=x onerror=\"document.title='owned'\"> & 'run'";

// A three-epoch run with a test split and a report of `title`.
std::string report_of_a_run(const std::string& name, const std::string& title,
                            int* pages_seen = nullptr) {
  kiln::Generator gen{5};
  const auto net = kiln::mlp({1, 8, 2}, gen);
  kiln::Sgd optimizer(net->parameters(), 0.1f);
  kiln::CrossEntropyLoss loss;
  kiln::DataLoader train{line_points(40), {.batch_size = 8}};
  kiln::DataLoader test{line_points(13), {.batch_size = 8, .shuffle = false}};
  kiln::TrainerOptions options;
  options.run.model = title;  // a setting the user typed
  options.run.lr = 0.1f;
  kiln::Trainer trainer(*net, optimizer, loss, options);
  const auto report =
      std::make_shared<kiln::RunReport>(fresh_dir(name), kiln::RunReportOptions{title});
  EXPECT_NE(text_of(report->path()).find("data-rendered"), std::string::npos)
      << "a first page at once";
  const auto reader = std::make_shared<PageReader>(report->path());
  trainer.add_observer(report);
  trainer.add_observer(reader);
  trainer.fit(train, 3, &test);
  if (pages_seen) *pages_seen = reader->pages;
  return report->path();
}

}  // namespace

TEST(RunReportPage, EscapesEveryTextAUserOrTheDataCanSet) {
  kiln::RunReportContent c;
  c.title = "<script>alert(1)</script>";
  c.settings = {{"TrainerOptions::run.data", "csv:a\"b<c>.csv"}};
  c.model_structure = "w (1, 2) <x>";
  c.diagnosis = {"input-bound: 80 % <waiting> & more"};
  c.epochs = {epoch(1)};
  c.host_peak_mib = {100};
  const std::string html = kiln::run_report_html(c);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("csv:a&quot;b&lt;c&gt;.csv"), std::string::npos);
  EXPECT_NE(html.find("w (1, 2) &lt;x&gt;"), std::string::npos);
  EXPECT_NE(html.find("80 % &lt;waiting&gt; &amp; more"), std::string::npos);
  EXPECT_EQ(html.find("http"), html.find("http://www.w3.org/2000/svg"))
      << "no link out of the file but SVG's namespace";
}

TEST(RunReportPage, DrawsWhatWasMeasuredAndNothingElse) {
  kiln::RunReportContent c;
  c.epochs = {epoch(1), epoch(2)};  // no test split: test figures NaN; CPU: no GPU figures
  c.host_peak_mib = {100, 120};
  Series series = chart_series(kiln::run_report_html(c));
  EXPECT_EQ(series, (Series{{"train", 2},
                            {"train", 2},
                            {"samples/s", 2},
                            {"lr", 2},
                            {"data wait", 2},
                            {"host-&gt;device copy", 2},
                            {"forward", 2},
                            {"backward", 2},
                            {"optimizer step", 2},
                            {"other (host)", 2},
                            {"peak resident", 2}}));
  c.epochs[0].on_gpu = c.epochs[1].on_gpu = true;
  c.epochs[1].gpu_memory_in_use_mib = 900, c.epochs[1].gpu_memory_peak_mib = 1200;
  c.epochs[1].gpu_utilization_percent = 85;
  c.epochs[1].stages[kiln::Stage::allreduce] = 100;
  c.epochs[1].test_loss = 0.5;
  series = chart_series(kiln::run_report_html(c));
  for (const auto& expected :
       Series{{"test", 1}, {"all-reduce", 2}, {"in use", 1}, {"peak", 1}, {"utilisation", 1}})
    EXPECT_NE(std::find(series.begin(), series.end(), expected), series.end()) << expected.first;
}

TEST(RunReport, IsRewrittenWholeAfterEachEpochAndMarkedFinishedAtTheEnd) {
  int pages = 0;
  const std::string path = report_of_a_run("rewritten", "line run", &pages);
  EXPECT_EQ(pages, 3);
  const std::string page = text_of(path);
  EXPECT_NE(page.find("finished: 3 epochs of 3"), std::string::npos) << page;
  EXPECT_NE(page.find("data-running=\"false\""), std::string::npos);
  EXPECT_EQ(page.substr(page.size() - 8), "</html>\n");
}

TEST(RunReport, OpensInChromiumWithoutScriptErrorsAndWithEveryChartSeries) {
  KILN_SKIP_WITHOUT_CHROMIUM();
  const std::string path = report_of_a_run("browser", kHostileTitle);
  const kiln::testing::BrowserView view = kiln::testing::open_in_chromium(path);
  ASSERT_EQ(view.exit_code, 0) << view.console;
  EXPECT_EQ(view.console, "") << "the page's console (script errors land there)";
  EXPECT_NE(view.dom.find("data-rendered=\"6 charts, 13 series\""), std::string::npos) << view.dom;
  EXPECT_EQ(chart_series(view.dom), (Series{{"train", 3},
                                            {"test", 3},
                                            {"train", 3},
                                            {"test", 3},
                                            {"samples/s", 3},
                                            {"lr", 3},
                                            {"data wait", 3},
                                            {"host-&gt;device copy", 3},
                                            {"forward", 3},
                                            {"backward", 3},
                                            {"optimizer step", 3},
                                            {"other (host)", 3},
                                            {"peak resident", 3}}));
  // The user's title is text, in the heading and in the settings, never an element.
  EXPECT_EQ(view.dom.find("<img"), std::string::npos) << view.dom;
  EXPECT_NE(
      view.dom.find("<h1>&lt;img src=x onerror=\"document.title='owned'\"&gt; &amp; 'run'</h1>"),
      std::string::npos)
      << view.dom;
  EXPECT_TRUE(kiln::testing::is_png(view.screenshot, 20000)) << view.screenshot;
}

// The check above can fail: a page whose script throws shows the error on the console and never
// marks itself rendered.
TEST(HeadlessChromium, ReportsAScriptErrorOfThePage) {
  KILN_SKIP_WITHOUT_CHROMIUM();
  const std::string path = fresh_dir("script_error") + ".html";
  std::ofstream(path) << "<!DOCTYPE html><html><body><script>no_such_function();</script>"
                      << kiln::html_rendered_marker() << "</body></html>";
  const kiln::testing::BrowserView view = kiln::testing::open_in_chromium(path, 400, 300);
  EXPECT_NE(view.console.find("no_such_function is not defined"), std::string::npos)
      << view.console;
  EXPECT_NE(view.dom.find("data-rendered=\"0 charts, 0 series\""), std::string::npos)
      << "the marker's own script still runs: " << view.dom;
}
