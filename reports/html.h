// HTML pieces for the report: escaping and tables (the Table view as <table>).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "reports/table.h"

namespace rooftop::reports {

std::string html_escape(std::string_view s);
std::string render_html(const Table& t);  // <table> with a caption, a header row and footnotes under it
// An SVG for inline use in HTML: the xmlns attribute dropped (HTML needs none; the page then names no URL).
std::string inline_svg(std::string svg);
// One self-contained page (inline CSS, no scripts, no links): a title, the charts (SVG), then the tables.
std::string simple_page(const std::string& title, const std::vector<std::string>& svgs, const std::vector<Table>& tables);

}  // namespace rooftop::reports
