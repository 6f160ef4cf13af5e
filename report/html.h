// HTML pieces of the pages kiln writes (the run report, bench's speedup page): text escaped for
// an element or an attribute, and a self-contained page around a body — inline CSS, no link to
// anything outside the file, so it opens the same offline.
#pragma once

#include <string>
#include <string_view>

namespace kiln {

// `text` safe inside an element or a quoted attribute: & < > " ' as character references.
// Every string a user or a file can set goes through it.
std::string html_escape(std::string_view text);

struct HtmlPage {
  std::string title;            // plain text (escaped here)
  std::string head;             // more of <head>, as HTML (a <script>, a <meta>)
  std::string body;             // the body, as HTML
  std::string body_attributes;  // ` data-x="1"`, as HTML (values escaped by the caller)
};
std::string html_document(const HtmlPage& page);

// A <script> for the end of a body: once the page has rendered it sets the body's
// data-rendered to "N charts, M series" (the SVGs and their data-series elements), which a
// headless browser's test reads; a script error before it leaves the attribute unset.
std::string html_rendered_marker();

}  // namespace kiln
