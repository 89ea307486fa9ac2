// Printers for Table: aligned text, Markdown and CSV.
#include "reports/table.h"

#include <algorithm>

namespace rooftop::reports {
namespace {

// Display width of a UTF-8 string (code points; good enough for the symbols we print).
size_t width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

bool right(const Table& t, size_t col) {
  if (col < t.right_align.size()) return t.right_align[col];
  return col != 0;
}

std::string pad(const std::string& s, size_t w, bool right_align) {
  const size_t n = width(s);
  if (n >= w) return s;
  return right_align ? std::string(w - n, ' ') + s : s + std::string(w - n, ' ');
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string render_text(const Table& t) {
  std::vector<size_t> w(t.headers.size(), 0);
  for (size_t c = 0; c < t.headers.size(); ++c) w[c] = width(t.headers[c]);
  for (const auto& r : t.rows)
    for (size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], width(r[c]));
  std::string out;
  if (!t.title.empty()) out += t.title + "\n";
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (size_t c = 0; c < w.size(); ++c) {
      if (c) l += "  ";
      l += pad(c < cells.size() ? cells[c] : "", w[c], right(t, c));
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  if (!t.headers.empty()) {
    line(t.headers);
    size_t total = 0;
    for (size_t c = 0; c < w.size(); ++c) total += w[c] + (c ? 2 : 0);
    out += std::string(total, '-') + "\n";
  }
  for (const auto& r : t.rows) line(r);
  for (const auto& f : t.footnotes) out += "  " + f + "\n";
  return out;
}

std::string render_markdown(const Table& t) {
  std::string out;
  if (!t.title.empty()) out += "### " + t.title + "\n\n";
  out += "|";
  for (const auto& h : t.headers) out += " " + md_cell(h) + " |";
  out += "\n|";
  for (size_t c = 0; c < t.headers.size(); ++c) out += right(t, c) ? " ---: |" : " --- |";
  out += "\n";
  for (const auto& r : t.rows) {
    out += "|";
    for (size_t c = 0; c < t.headers.size(); ++c) out += " " + md_cell(c < r.size() ? r[c] : "") + " |";
    out += "\n";
  }
  if (!t.footnotes.empty()) {
    out += "\n";
    for (const auto& f : t.footnotes) out += "- " + f + "\n";
  }
  return out;
}

std::string render_csv(const Table& t) {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) out += (c ? "," : "") + csv_cell(cells[c]);
    out += "\n";
  };
  line(t.headers);
  for (const auto& r : t.rows) line(r);
  return out;
}

std::string render(const std::vector<Table>& tables, const std::string& format) {
  std::string out;
  for (size_t i = 0; i < tables.size(); ++i) {
    if (i) out += "\n";
    if (format == "md") out += render_markdown(tables[i]);
    else if (format == "csv") out += render_csv(tables[i]);
    else out += render_text(tables[i]);
  }
  return out;
}

}  // namespace rooftop::reports
