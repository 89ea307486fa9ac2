// The validate law chart's data and the HTML page (rendering the SVG is the caller's, via reports/svg.h).
#include "reports/validation_chart.h"

#include <algorithm>
#include <sstream>

#include "reports/validation_render.h"
#include "reports/html.h"

namespace rooftop::reports {
reports::svg::LineChart validate_law_chart(const SweepResult& r) {
  namespace svg = reports::svg;
  svg::LineChart c;
  c.title = "Decode tok/s against bytes per token (" + r.chip_id + ")";
  c.x = {"bytes read per token (B)", true, std::nullopt, std::nullopt};
  c.y = {"measured decode tok/s", true, std::nullopt, std::nullopt};
  svg::Series memory{"measured, analyzer says memory-bound", "#1f77b4", {}, false, true, false};
  svg::Series compute{"measured, analyzer says compute-bound", "#d62728", {}, false, true, false};
  double lo = 0, hi = 0;
  for (const auto& p : r.points) {
    if (p.phase != "decode" || !(p.bytes_per_token() > 0) || !(p.measured_tokens_per_s > 0)) continue;
    (p.bound == "compute" ? compute : memory).points.push_back({p.bytes_per_token(), p.measured_tokens_per_s});
    lo = lo > 0 ? std::min(lo, p.bytes_per_token()) : p.bytes_per_token();
    hi = std::max(hi, p.bytes_per_token());
  }
  if (hi > 0 && r.memory_bandwidth_bytes_per_s > 0) {
    svg::Series law{"law: bandwidth / bytes", "#555555", {}, true, false, true};
    const double bw = r.memory_bandwidth_bytes_per_s;
    for (double x : {lo / 1.5, hi * 1.5}) law.points.push_back({x, bw / x});
    c.series.push_back(std::move(law));
  }
  if (!memory.points.empty()) c.series.push_back(std::move(memory));
  if (!compute.points.empty()) c.series.push_back(std::move(compute));
  return c;
}

std::string validate_html(const SweepResult& r, const std::string& svg) {
  std::ostringstream s;
  s << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>rooftop validate</title>\n"
       "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
       "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td.t,th{text-align:left}</style>\n"
       "</head><body>\n<h1>rooftop validate</h1>\n";
  // The Markdown view's rows, split back into cells, keep one source for the columns.
  std::istringstream md(validate_markdown(r));
  std::string line;
  bool in_table = false, header = true;
  while (std::getline(md, line)) {
    if (line.rfind("| ", 0) != 0) {
      if (in_table) s << "</table>\n";
      in_table = false;
      if (line.rfind("# ", 0) == 0 || line.empty()) continue;
      std::string text = reports::html_escape(line);
      bool open = true;  // Markdown **bold** pairs become <strong> ... </strong>
      for (size_t at = text.find("**"); at != std::string::npos; at = text.find("**", at)) {
        text.replace(at, 2, open ? "<strong>" : "</strong>");
        open = !open;
      }
      s << "<p>" << text << "</p>\n";
      continue;
    }
    if (line.find("---") != std::string::npos) continue;  // the Markdown alignment row
    if (!in_table) s << "<table>\n";
    in_table = true;
    s << "<tr>";
    std::istringstream cells(line.substr(1));
    std::string cell;
    int col = 0;
    while (std::getline(cells, cell, '|')) {
      const auto a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
      if (a == std::string::npos) continue;
      const std::string text = reports::html_escape(cell.substr(a, b - a + 1));
      s << (header ? "<th>" : (col < 3 ? "<td class=\"t\">" : "<td>")) << text << (header ? "</th>" : "</td>");
      ++col;
    }
    s << "</tr>\n";
    header = false;
  }
  if (in_table) s << "</table>\n";
  s << "<figure>\n" << svg << "\n</figure>\n</body></html>\n";
  return s.str();
}

}  // namespace rooftop::reports
