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

std::string inline_svg(std::string svg) {
  const std::string ns = " xmlns=\"http://www.w3.org/2000/svg\"";
  if (auto at = svg.find(ns); at != std::string::npos) svg.erase(at, ns.size());
  return svg;
}

std::string simple_page(const std::string& title, const std::vector<std::string>& svgs, const std::vector<Table>& tables) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + html_escape(title) +
                    "</title>\n<style>\nbody{margin:16px;font-family:'DejaVu Sans',Arial,sans-serif;font-size:14px;color:#1a1a1a}\n"
                    "figure{margin:12px 0}\ntable.t{border-collapse:collapse;margin:18px 0 4px 0;font-size:13px}\n"
                    "table.t caption{text-align:left;font-weight:bold;padding:4px 0}\n"
                    "table.t th,table.t td{border:1px solid #cccccc;padding:3px 8px}\ntable.t th{background:#f0f0f0}\n"
                    "td.r,th.r{text-align:right}\nul.notes{font-size:12px;color:#444444}\n</style>\n</head>\n<body>\n<h1>" +
                    html_escape(title) + "</h1>\n";
  for (const auto& c : svgs) out += "<figure>\n" + inline_svg(c) + "</figure>\n";
  for (const auto& t : tables) out += render_html(t);
  return out + "</body>\n</html>\n";
}

}  // namespace rooftop::reports
