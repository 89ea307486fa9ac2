// Table: the one view every printer renders (terminal text, Markdown, CSV).
#pragma once
#include <string>
#include <vector>

namespace rooftop::reports {

struct Table {
  std::string title;
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right_align;        // per column; default: right for all but the first
  std::vector<std::string> footnotes;   // assumptions, notes, sources
};

std::string render_text(const Table& t);      // aligned columns with a rule under the header
std::string render_markdown(const Table& t);  // GitHub-flavoured pipe table
std::string render_csv(const Table& t);       // RFC 4180 quoting; no footnotes
// Several tables in one format ("table", "md", "csv").
std::string render(const std::vector<Table>& tables, const std::string& format);

}  // namespace rooftop::reports
