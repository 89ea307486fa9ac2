// HTML tables: each Table as <table class="t"> with its title as caption and footnotes in a list.
#include "reports/html.h"

#include "reports/svg.h"

namespace rooftop::reports {

std::string html_escape(std::string_view s) { return svg::escape(s); }

std::string render_html(const Table& t) {
  std::string out = "<table class=\"t\">\n";
  if (!t.title.empty()) out += "<caption>" + html_escape(t.title) + "</caption>\n";
  auto right = [&](size_t i) { return i < t.right_align.size() ? bool(t.right_align[i]) : i > 0; };
  out += "<thead><tr>";
  for (size_t i = 0; i < t.headers.size(); ++i)
    out += std::string(right(i) ? "<th class=\"r\">" : "<th>") + html_escape(t.headers[i]) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i)
      out += std::string(right(i) ? "<td class=\"r\">" : "<td>") + html_escape(row[i]) + "</td>";
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";
  if (!t.footnotes.empty()) {
    out += "<ul class=\"notes\">\n";
    for (const auto& f : t.footnotes) out += "<li>" + html_escape(f) + "</li>\n";
    out += "</ul>\n";
  }
  return out;
}

}  // namespace rooftop::reports
