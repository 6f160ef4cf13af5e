// Opening a page in a real browser for the tests of kiln's HTML outputs: headless Chromium
// (Debian's `chromium`, which scripts/test.sh installs for its test phase) renders a file to a
// screenshot and dumps the DOM after its scripts ran, with the page's console on stderr. A test
// skips, visibly, where no Chromium is installed.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace kiln::testing {

// The browser's path, or "" when none is installed.
inline std::string chromium_path() {
  for (const char* name : {"chromium", "chromium-browser"})
    for (const char* dir : {"/usr/bin", "/usr/local/bin", "/snap/bin"}) {
      const std::string path = std::string(dir) + "/" + name;
      if (::access(path.c_str(), X_OK) == 0) return path;
    }
  return "";
}

#define KILN_SKIP_WITHOUT_CHROMIUM()                                                               \
  if (::kiln::testing::chromium_path().empty())                                                    \
  GTEST_SKIP() << "no chromium installed (scripts/test.sh installs Debian's for its test phase): " \
                  "the page is not opened in a browser"

struct BrowserView {
  int exit_code = -1;
  std::string dom;         // the DOM once the page's scripts ran (--dump-dom)
  std::string console;     // the page's console messages (and the errors of its scripts)
  std::string screenshot;  // the PNG's path
};

namespace detail {
inline int run_to_files(const std::string& command, const std::string& out,
                        const std::string& err) {
  const int status = std::system((command + " >'" + out + "' 2>'" + err + "'").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
}  // namespace detail

// Opens `html_file` twice (once for the DOM, once for a screenshot of `width` x `height` beside
// it, "<html_file>.png"), each time in a fresh profile, so two tests can run at once.
inline BrowserView open_in_chromium(const std::string& html_file, int width = 1200,
                                    int height = 2400) {
  const std::string base = ::testing::TempDir() + "kiln_chromium_" + std::to_string(getpid());
  const std::string common =
      "'" + chromium_path() +
      "' --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions "
      "--enable-logging=stderr --v=0 --user-data-dir='" +
      base + "_profile' ";
  const std::string url = "'file://" + std::filesystem::absolute(html_file).string() + "'";
  BrowserView view;
  view.exit_code = detail::run_to_files("timeout 120 " + common + "--dump-dom " + url,
                                        base + "_dom", base + "_err");
  view.dom = detail::slurp(base + "_dom");
  // Console lines read `...:INFO:CONSOLE:12] "message", source: file:///... (12)` (CONSOLE(12) in
  // older versions).
  std::istringstream err(detail::slurp(base + "_err"));
  for (std::string line; std::getline(err, line);)
    if (line.find(":CONSOLE") != std::string::npos) view.console += line + "\n";
  view.screenshot = html_file + ".png";
  const int shot = detail::run_to_files(
      "timeout 120 " + common + "--window-size=" + std::to_string(width) + "," +
          std::to_string(height) + " --screenshot='" + view.screenshot + "' " + url,
      base + "_shot_out", base + "_shot_err");
  if (view.exit_code == 0) view.exit_code = shot;
  std::filesystem::remove_all(base + "_profile");
  for (const char* end : {"_dom", "_err", "_shot_out", "_shot_err"})
    std::filesystem::remove(base + end);
  return view;
}

// Each (data-series, data-points) pair of the DOM, in document order.
inline std::vector<std::pair<std::string, int>> chart_series(const std::string& dom) {
  std::vector<std::pair<std::string, int>> series;
  const std::regex pair("data-series=\"([^\"]*)\" data-points=\"([0-9]+)\"");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), pair); it != std::sregex_iterator();
       ++it)
    series.emplace_back((*it)[1].str(), std::stoi((*it)[2].str()));
  return series;
}

// Whether `path` holds a PNG image (its signature) of more than `min_bytes`.
inline bool is_png(const std::string& path, std::size_t min_bytes) {
  const std::string bytes = detail::slurp(path);
  return bytes.size() > min_bytes && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
}

}  // namespace kiln::testing
