// HTML pieces for the report: escaping and tables (the Table view as <table>).
#pragma once
#include <string>
#include <string_view>

#include "reports/table.h"

namespace rooftop::reports {

std::string html_escape(std::string_view s);
std::string render_html(const Table& t);  // <table> with a caption, a header row and footnotes under it

}  // namespace rooftop::reports
