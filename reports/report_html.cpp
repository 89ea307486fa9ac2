// The report's page views: one self-contained HTML file (inline CSS and SVG, no scripts, no links) and Markdown.
#include <fmt/format.h>

#include "reports/html.h"
#include "reports/report.h"
#include "reports/units.h"

namespace rooftop::reports {
namespace {

std::string verdict(const ReportData& d) {
  const auto& f = d.fit;
  std::string s = d.model.id + " (" + count(f.params_total) + " parameters, " + f.precision + ") on " + d.chip.name + ": ";
  s += f.fits ? "fits, " + bytes(f.headroom_bytes) + " headroom" : "does not fit, over by " + bytes(-f.headroom_bytes);
  if (!d.speed.points.empty()) {
    const auto& p = d.speed.points.front();
    s += "; batch " + grouped(p.batch) + ": " + sig(p.decode_tokens_per_s) + " tok/s, TTFT " + seconds(p.ttft_s);
    if (d.speed.has_price) s += ", " + usd(p.usd_per_mtok_output) + " per million output tokens";
  }
  return s;
}


}  // namespace

std::string report_html(const ReportData& d) {
  const auto charts = report_charts(d);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>rooftop report: " +
                    html_escape(d.model.id + " on " + d.chip.id) + "</title>\n<style>\n";
  out += fmt::format(
      "body{{margin:0;padding:0;background:#ffffff;color:#1a1a1a;font-family:'DejaVu Sans',Arial,sans-serif;font-size:14px}}\n"
      "header{{height:{}px;box-sizing:border-box;padding:14px {}px;overflow:hidden;border-bottom:1px solid #dddddd}}\n"
      "header h1{{font-size:22px;margin:0 0 8px 0}}\n"
      "header p{{margin:0;font-size:14px}}\n"
      "figure.chart{{margin:0 0 0 {}px;width:{}px;height:{}px;box-sizing:border-box;overflow:hidden;display:flex;gap:20px;align-items:flex-start}}\n"
      "figure.chart svg{{display:block;flex:none}}\n"
      "section{{margin:24px {}px;max-width:1200px}}\n"
      "table.t{{border-collapse:collapse;margin:18px 0 4px 0;font-size:13px}}\n"
      "table.t caption{{text-align:left;font-weight:bold;padding:4px 0}}\n"
      "table.t th,table.t td{{border:1px solid #cccccc;padding:3px 8px;vertical-align:top}}\n"
      "table.t th{{background:#f0f0f0}}\n"
      "td.r,th.r{{text-align:right}}\n"
      "ul.notes{{margin:2px 0 10px 0;font-size:12px;color:#444444}}\n"
      "#sources td{{word-break:break-all}}\n",
      kHeaderPx, kFigureLeftPx, kFigureLeftPx, kChartWidthPx, kFigurePx, kFigureLeftPx);
  out += "</style>\n</head>\n<body>\n<header>\n<h1>" + html_escape("rooftop report: " + d.model.id + " on " + d.chip.id) +
         "</h1>\n<p>" + html_escape(verdict(d)) + "</p>\n</header>\n";
  // Five figure blocks at fixed offsets (see kHeaderPx/kFigurePx): the two batch charts share one block.
  for (size_t i = 0; i < charts.size(); ++i) {
    const auto& [name, svg] = charts[i];
    if (name == "batch-cost" || name == "law") continue;
    out += "<figure class=\"chart\" id=\"chart-" + name + "\">\n" + inline_svg(svg);
    if (name == "batch-tokens" && i + 1 < charts.size()) out += inline_svg(charts[i + 1].second);
    out += "</figure>\n";
  }
  // After the fixed figure blocks, so their offsets do not move.
  if (!d.validation.is_null()) {
    out += "<section id=\"validation\">\n<h2>Validated on this machine</h2>\n<p>" + html_escape(validation_summary(d.validation)) +
           "</p>\n</section>\n<figure class=\"chart\" id=\"chart-law\">\n" + inline_svg(charts.back().second) + "</figure>\n";
  }
  if (!d.validation_notice.empty())
    out += "<section id=\"validation\">\n<p>" + html_escape(d.validation_notice) + "</p>\n</section>\n";
  out += "<section id=\"tables\">\n";
  for (const auto& t : report_tables(d)) out += render_html(t);
  out += "</section>\n<section id=\"sources\">\n" + render_html(report_sources_table(d)) + "</section>\n</body>\n</html>\n";
  return out;
}

std::string report_markdown(const ReportData& d, const std::string& svg_stem) {
  std::string out = "# rooftop report: " + d.model.id + " on " + d.chip.id + "\n\n" + verdict(d) + "\n\n";
  for (const auto& [name, svg] : report_charts(d))
    if (name != "law") out += "![" + name + "](" + svg_stem + "-" + name + ".svg)\n\n";
  if (!d.validation.is_null())
    out += "## Validated on this machine\n\n" + validation_summary(d.validation) + "\n\n![measured decode tok/s against bytes per token, with the law's line](" +
           svg_stem + "-law.svg)\n\n";
  if (!d.validation_notice.empty()) out += d.validation_notice + "\n\n";
  for (const auto& t : report_tables(d)) out += render_markdown(t) + "\n";
  out += render_markdown(report_sources_table(d));
  return out;
}

}  // namespace rooftop::reports
