// html_escape and html_document (report/html.h).
#include "kiln/report/html.h"

namespace kiln {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

constexpr std::string_view kStyle = R"(<style>
body { font-family: system-ui, sans-serif; margin: 24px; color: #222; max-width: 1100px; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
.note { color: #666; font-size: 0.9em; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
figure { margin: 0; }
table { border-collapse: collapse; font-size: 0.9em; }
td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-size: 0.95em; }
svg text { font-family: system-ui, sans-serif; }
</style>
)";

}  // namespace

std::string html_document(const HtmlPage& page) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<title>" + html_escape(page.title) + "</title>\n";
  html += kStyle;
  html += page.head;
  html += "</head>\n<body" + page.body_attributes + ">\n";
  html += page.body;
  html += "</body>\n</html>\n";
  return html;
}

std::string html_rendered_marker() {
  return R"(<script>
(function () {
  var charts = document.querySelectorAll('svg').length;
  var series = document.querySelectorAll('svg [data-series]').length;
  document.body.setAttribute('data-rendered', charts + ' charts, ' + series + ' series');
})();
</script>
)";
}

}  // namespace kiln
