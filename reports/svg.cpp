// The SVG chart writer: ticks, scales, and the three chart kinds, with greedy label placement.
#include "reports/svg.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

namespace rooftop::reports::svg {
namespace {

constexpr double kFontPx = 12, kSmallPx = 11, kTitlePx = 15;
constexpr const char* kFont = "font-family=\"DejaVu Sans, Arial, sans-serif\"";

// A coordinate with one decimal; never NaN or infinity in the output.
std::string n(double v) {
  if (!std::isfinite(v)) v = 0;
  return fmt::format("{:.1f}", v);
}

std::string text(double x, double y, std::string_view s, double px, const char* anchor = "start",
                 const std::string& extra = "") {
  return fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{}\" {}{}{}>{}</text>\n", n(x), n(y), px, anchor,
                     kFont, extra.empty() ? "" : " ", extra, escape(s));
}

std::string line(double x0, double y0, double x1, double y1, const std::string& color, double width,
                 const std::string& extra = "") {
  return fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{}/>\n", n(x0), n(y0),
                     n(x1), n(y1), color, width, extra);
}

std::string rect(double x, double y, double w, double h, const std::string& fill, const std::string& extra = "") {
  return fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}/>\n", n(x), n(y), n(std::max(0.0, w)),
                     n(std::max(0.0, h)), fill, extra);
}

std::string open_svg(int w, int h, std::string_view title) {
  return fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\">\n"
                     "<title>{}</title>\n<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n",
                     w, h, w, h, escape(title), w, h);
}

// The smallest 1-2-5 x 10^k step that puts at most max_ticks ticks on a span of this length.
double nice_step(double span, int max_ticks) {
  const double raw = span / std::max(1, max_ticks);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0, 20.0})
    if (std::floor(span / (m * mag) + 1e-9) + 1 <= max_ticks) return m * mag;
  return 20 * mag;
}

// Data range of an axis from the values it must show.
void data_range(const Axis& a, std::vector<double> values, double& lo, double& hi) {
  if (a.log) values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !(v > 0) || !std::isfinite(v); }),
                          values.end());
  else values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }), values.end());
  double mn = values.empty() ? (a.log ? 1 : 0) : *std::min_element(values.begin(), values.end());
  double mx = values.empty() ? (a.log ? 10 : 1) : *std::max_element(values.begin(), values.end());
  if (a.log) {
    lo = std::pow(10.0, std::floor(std::log10(mn) + 1e-9));
    hi = std::pow(10.0, std::ceil(std::log10(mx * 1.5) - 1e-9));
    if (hi <= lo) hi = lo * 10;
  } else {
    if (mn > 0) mn = 0;
    if (mx <= mn) mx = mn + 1;
    const double step = nice_step(mx - mn, 6);
    lo = std::floor(mn / step + 1e-9) * step;
    hi = std::ceil(mx / step - 1e-9) * step;
  }
  if (a.min) lo = *a.min;
  if (a.max) hi = *a.max;
  if (a.log && !(lo > 0)) lo = 1e-3;
  if (!(hi > lo)) hi = a.log ? lo * 10 : lo + 1;
}

// Places labels greedily: the first candidate box that stays inside `bounds` and hits nothing placed.
struct Placer {
  Box bounds;
  std::vector<Box> placed;
  std::optional<Box> place(const std::vector<Box>& candidates) {
    for (const auto& c : candidates) {
      if (c.x0 < bounds.x0 || c.x1 > bounds.x1 || c.y0 < bounds.y0 || c.y1 > bounds.y1) continue;
      if (std::any_of(placed.begin(), placed.end(), [&](const Box& p) { return p.overlaps(c); })) continue;
      placed.push_back(c);
      return c;
    }
    return std::nullopt;
  }
};

std::string clip_id(const std::string& title, int w, int h) {
  return fmt::format("clip{:x}", std::hash<std::string>{}(title + std::to_string(w) + "x" + std::to_string(h)) & 0xffffffffu);
}

}  // namespace

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
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

std::string si(double v) {
  if (!std::isfinite(v)) return "n/a";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  static const struct { double f; const char* p; } kPrefixes[] = {
      {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}, {1e-3, "m"}, {1e-6, "µ"}, {1e-9, "n"}};
  double f = 1;
  const char* p = "";
  for (const auto& k : kPrefixes) {
    if (a >= k.f * (1 - 1e-9)) {
      f = k.f;
      p = k.p;
      break;
    }
    f = k.f;
    p = k.p;
  }
  // Plain decimals for 0.001 .. 1 read better than milli prefixes on axes of ratios.
  if (a < 1 && a >= 1e-3) {
    f = 1;
    p = "";
  }
  std::string m = fmt::format("{:.3g}", v / f);
  if (m.find('e') != std::string::npos) m = fmt::format("{:.0f}", v / f);
  return m + p;
}

std::vector<Tick> linear_ticks(double lo, double hi, int max_ticks) {
  std::vector<Tick> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi) || hi <= lo) return ticks;
  const double step = nice_step(hi - lo, max_ticks);
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1) {
    double v = k * step;
    if (std::fabs(v) < step * 1e-9) v = 0;
    ticks.push_back({v, si(v)});
  }
  return ticks;
}

std::vector<Tick> log_ticks(double lo, double hi, int max_ticks) {
  std::vector<Tick> ticks;
  if (!(lo > 0) || !std::isfinite(hi) || hi < lo) return ticks;
  const int k0 = static_cast<int>(std::ceil(std::log10(lo) - 1e-9));
  const int k1 = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
  const int count = k1 - k0 + 1;
  const int stride = std::max(1, (count + max_ticks - 1) / std::max(1, max_ticks));
  for (int k = k0; k <= k1; ++k)
    if (k % stride == 0) ticks.push_back({std::pow(10.0, k), si(std::pow(10.0, k))});
  return ticks;
}

double Scale::map(double v) const {
  double t = 0.5;
  if (log) {
    const double l0 = std::log10(d0), l1 = std::log10(d1);
    if (!(v > 0)) v = d0 * 1e-6;
    if (l1 != l0) t = (std::log10(v) - l0) / (l1 - l0);
  } else if (d1 != d0) {
    t = (v - d0) / (d1 - d0);
  }
  const double p = p0 + t * (p1 - p0);
  return std::isfinite(p) ? p : p0;
}

double text_width_px(std::string_view s, double font_px) {
  // Count code points (µ, ×, ≥ are multi-byte); an average glyph is ~0.6 em wide in a sans font.
  double chars = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) chars += 1;
  return chars * font_px * 0.6;
}

std::string render(const LineChart& c) {
  const double left = 84, right = 28, top = 58, bottom = 58;
  const double px0 = left, px1 = c.width_px - right, py0 = c.height_px - bottom, py1 = top;
  std::vector<double> xs, ys;
  for (const auto& s : c.series)
    for (const auto& p : s.points) {
      xs.push_back(p.x);
      ys.push_back(p.y);
    }
  for (const auto& l : c.labels) {
    xs.push_back(l.x);
    ys.push_back(l.y);
  }
  for (const auto& r : c.refs) (r.vertical ? xs : ys).push_back(r.value);
  Scale sx, sy;
  data_range(c.x, xs, sx.d0, sx.d1);
  data_range(c.y, ys, sy.d0, sy.d1);
  sx.log = c.x.log;
  sy.log = c.y.log;
  sx.p0 = px0;
  sx.p1 = px1;
  sy.p0 = py0;
  sy.p1 = py1;

  std::string out = open_svg(c.width_px, c.height_px, c.title);
  const std::string cid = clip_id(c.title, c.width_px, c.height_px);
  out += fmt::format("<defs><clipPath id=\"{}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath></defs>\n", cid,
                     n(px0), n(py1), n(px1 - px0), n(py0 - py1));
  out += text(12, 22, c.title, kTitlePx, "start", "font-weight=\"bold\"");

  // Grid, ticks and tick labels (a label that would overlap the previous one is skipped).
  const auto xt = c.x.log ? log_ticks(sx.d0, sx.d1) : linear_ticks(sx.d0, sx.d1);
  const auto yt = c.y.log ? log_ticks(sy.d0, sy.d1) : linear_ticks(sy.d0, sy.d1);
  double last_x1 = -1e9;
  for (const auto& t : xt) {
    const double x = sx.map(t.value);
    out += line(x, py1, x, py0, "#e3e3e3", 1);
    out += line(x, py0, x, py0 + 5, "#333333", 1);
    const double w = text_width_px(t.label, kFontPx);
    if (x - w / 2 < last_x1 + 6) continue;
    out += text(x, py0 + 19, t.label, kFontPx, "middle");
    last_x1 = x + w / 2;
  }
  double last_y = 1e9;
  for (const auto& t : yt) {
    const double y = sy.map(t.value);
    out += line(px0, y, px1, y, "#e3e3e3", 1);
    out += line(px0 - 5, y, px0, y, "#333333", 1);
    if (y + kFontPx / 2 > last_y - kFontPx / 2 - 2) continue;
    out += text(px0 - 8, y + 4, t.label, kFontPx, "end");
    last_y = y;
  }
  out += rect(px0, py1, px1 - px0, py0 - py1, "none", " stroke=\"#333333\" stroke-width=\"1\"");
  out += text((px0 + px1) / 2, c.height_px - 14, c.x.title, kFontPx + 1, "middle");
  out += fmt::format("<g transform=\"translate(18,{}) rotate(-90)\">{}</g>\n", n((py0 + py1) / 2),
                     text(0, 0, c.y.title, kFontPx + 1, "middle"));

  // Legend in the top margin, right of the title row.
  double lx = px0, ly = 44;
  for (const auto& s : c.series) {
    if (s.name.empty()) continue;
    const double w = text_width_px(s.name, kSmallPx) + 34;
    if (lx + w > px1) break;
    if (s.line) out += line(lx, ly - 4, lx + 22, ly - 4, s.color, 2.5, s.dashed ? " stroke-dasharray=\"6 4\"" : "");
    if (s.markers || !s.line) out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{}\"/>\n", n(lx + 11), n(ly - 4), s.color);
    out += text(lx + 27, ly, s.name, kSmallPx);
    lx += w;
  }

  // Reference lines, then series, clipped to the plot.
  Placer placer{{px0 + 2, py1 + 2, px1 - 2, py0 - 2}, {}};
  out += fmt::format("<g clip-path=\"url(#{})\">\n", cid);
  for (const auto& r : c.refs) {
    if (r.vertical) out += line(sx.map(r.value), py1, sx.map(r.value), py0, r.color, 1.5, " stroke-dasharray=\"5 4\"");
    else out += line(px0, sy.map(r.value), px1, sy.map(r.value), r.color, 1.5, " stroke-dasharray=\"5 4\"");
  }
  for (const auto& s : c.series) {
    if (s.line && s.points.size() > 1) {
      std::string pts;
      for (const auto& p : s.points) pts += n(sx.map(p.x)) + "," + n(sy.map(p.y)) + " ";
      out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\"{}/>\n", pts, s.color,
                         s.dashed ? " stroke-dasharray=\"6 4\"" : "");
    }
    if (s.markers || !s.line)
      for (const auto& p : s.points)
        out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"/>\n", n(sx.map(p.x)), n(sy.map(p.y)), s.color);
  }
  for (const auto& l : c.labels) {
    const double x = sx.map(l.x), y = sy.map(l.y);
    out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>\n", n(x), n(y),
                       l.hollow ? "#ffffff" : l.color, l.color);
    placer.placed.push_back({x - 5, y - 5, x + 5, y + 5});
  }
  // Lines are obstacles too: vertical references as thin boxes, series as small boxes every 6 px.
  for (const auto& r : c.refs)
    if (r.vertical) placer.placed.push_back({sx.map(r.value) - 2, py1, sx.map(r.value) + 2, py0});
  for (const auto& s : c.series) {
    if (!s.line) continue;
    for (size_t i = 1; i < s.points.size(); ++i) {
      const double x0 = sx.map(s.points[i - 1].x), y0 = sy.map(s.points[i - 1].y);
      const double x1 = sx.map(s.points[i].x), y1 = sy.map(s.points[i].y);
      const int steps = std::min(2000, static_cast<int>(std::hypot(x1 - x0, y1 - y0) / 6) + 1);
      for (int k = 0; k <= steps; ++k) {
        const double x = x0 + (x1 - x0) * k / steps, y = y0 + (y1 - y0) * k / steps;
        placer.placed.push_back({x - 2, y - 2, x + 2, y + 2});
      }
    }
  }
  out += "</g>\n";
  // Labels of reference lines and points, nudged until they overlap nothing.
  auto candidates = [](double x, double y, double w, double h) {
    std::vector<Box> c;
    for (int step = 0; step < 8; ++step) {
      const double dy = step * (h + 1);
      for (double y0 : {y - 8 - h - dy, y + 8 + dy})
        for (bool right : {true, false}) {
          const double x0 = right ? x + 8 : x - 8 - w;
          c.push_back({x0, y0, x0 + w, y0 + h});
        }
    }
    return c;
  };
  for (const auto& r : c.refs) {
    if (r.label.empty()) continue;
    const double w = text_width_px(r.label, kSmallPx), h = kSmallPx + 2;
    std::vector<Box> cand;
    if (r.vertical) {
      const double x = sx.map(r.value);
      for (int k = 0; k < 12; ++k)
        for (bool right : {true, false}) {
          const double x0 = right ? x + 4 : x - 4 - w;
          cand.push_back({x0, py1 + 4 + k * h, x0 + w, py1 + 4 + (k + 1) * h});
        }
    } else {
      const double y = sy.map(r.value);
      for (int k = 0; k < 12; ++k) {
        const double x0 = px1 - 6 - w - k * (w / 3);
        cand.push_back({x0, y - 4 - h, x0 + w, y - 4});
        cand.push_back({x0, y + 4, x0 + w, y + 4 + h});
      }
    }
    if (auto b = placer.place(cand)) out += text(b->x0, b->y1 - 3, r.label, kSmallPx, "start", fmt::format("fill=\"{}\"", r.color));
  }
  for (const auto& l : c.labels) {
    if (l.text.empty()) continue;
    const double w = text_width_px(l.text, kSmallPx), h = kSmallPx + 2;
    if (auto b = placer.place(candidates(sx.map(l.x), sy.map(l.y), w, h)))
      out += text(b->x0, b->y1 - 3, l.text, kSmallPx, "start", fmt::format("fill=\"{}\"", l.color));
  }
  out += "</svg>\n";
  return out;
}

std::string render(const BarChart& c) {
  double label_w = 40;
  for (const auto& b : c.bars) label_w = std::max(label_w, text_width_px(b.label, kFontPx));
  double value_w = 60;
  for (const auto& b : c.bars) value_w = std::max(value_w, text_width_px(si(b.value) + "  " + b.note, kFontPx));
  const double top = 40, bottom = 50, px0 = label_w + 20, px1 = c.width_px - value_w - 16;
  double mx = 0;
  for (const auto& b : c.bars)
    if (std::isfinite(b.value)) mx = std::max(mx, b.value);
  Axis a;
  double lo = 0, hi = 1;
  data_range(a, {0, mx > 0 ? mx : 1}, lo, hi);
  const Scale sx{lo, hi, px0, px1, false};
  std::string out = open_svg(c.width_px, c.height_px, c.title);
  out += text(12, 22, c.title, kTitlePx, "start", "font-weight=\"bold\"");
  const double py0 = c.height_px - bottom, py1 = top;
  double last_x1 = -1e9;
  for (const auto& t : linear_ticks(lo, hi, 7)) {
    const double x = sx.map(t.value);
    out += line(x, py1, x, py0, "#e3e3e3", 1);
    const double w = text_width_px(t.label, kFontPx);
    if (x - w / 2 < last_x1 + 6) continue;
    out += text(x, py0 + 17, t.label, kFontPx, "middle");
    last_x1 = x + w / 2;
  }
  out += line(px0, py1, px0, py0, "#333333", 1);
  out += line(px0, py0, px1, py0, "#333333", 1);
  out += text((px0 + px1) / 2, c.height_px - 12, c.value_title, kFontPx + 1, "middle");
  const double row_h = c.bars.empty() ? 1 : (py0 - py1) / static_cast<double>(c.bars.size());
  const double bar_h = std::min(28.0, row_h * 0.72);
  const double font = std::min(kFontPx, std::max(8.0, row_h * 0.75));
  for (size_t i = 0; i < c.bars.size(); ++i) {
    const auto& b = c.bars[i];
    const double yc = py1 + (i + 0.5) * row_h;
    const double v = std::isfinite(b.value) ? std::max(0.0, b.value) : 0;
    out += text(px0 - 8, yc + font / 3, b.label, font, "end");
    out += rect(px0, yc - bar_h / 2, sx.map(v) - px0, bar_h, b.color);
    out += text(sx.map(v) + 6, yc + font / 3, si(b.value) + (b.note.empty() ? "" : "  " + b.note), font, "start",
                b.note.empty() ? "" : "fill=\"#b00020\"");
  }
  out += "</svg>\n";
  return out;
}

std::string render(const StackedBar& c) {
  auto fmtv = c.format ? c.format : +[](double v) { return si(v); };
  double total = 0;
  for (const auto& s : c.segments) total += std::max(0.0, s.value);
  double mx = std::max(total, c.capacity);
  if (c.total_memory) mx = std::max(mx, *c.total_memory);
  const double px0 = 30, px1 = c.width_px - 30, bar_y = 92, bar_h = 56;
  const Scale sx{0, mx > 0 ? mx * 1.06 : 1, px0, px1, false};
  std::string out = open_svg(c.width_px, c.height_px, c.title);
  out += text(12, 22, c.title, kTitlePx, "start", "font-weight=\"bold\"");
  // Axis with ticks under the bar.
  const double axis_y = bar_y + bar_h + 26;
  out += line(px0, axis_y, px1, axis_y, "#333333", 1);
  double last_x1 = -1e9;
  for (const auto& t : linear_ticks(0, sx.d1, 8)) {
    const double x = sx.map(t.value);
    out += line(x, axis_y, x, axis_y + 5, "#333333", 1);
    const std::string label = fmtv(t.value);
    const double w = text_width_px(label, kSmallPx);
    if (x - w / 2 < last_x1 + 6) continue;
    out += text(x, axis_y + 18, label, kSmallPx, "middle");
    last_x1 = x + w / 2;
  }
  out += text((px0 + px1) / 2, axis_y + 38, c.value_title, kFontPx + 1, "middle");
  double x = 0;
  for (const auto& s : c.segments) {
    const double v = std::max(0.0, s.value);
    out += rect(sx.map(x), bar_y, sx.map(x + v) - sx.map(x), bar_h, s.color, " stroke=\"#ffffff\" stroke-width=\"1\"");
    x += v;
  }
  // Overflow past the capacity: a red outline and a label.
  if (total > c.capacity && c.capacity > 0) {
    out += rect(sx.map(c.capacity), bar_y - 6, sx.map(total) - sx.map(c.capacity), bar_h + 12, "#d62728",
                " fill-opacity=\"0.25\" stroke=\"#d62728\" stroke-width=\"2\"");
    const std::string over = "over by " + fmtv(total - c.capacity);
    out += text(sx.map(total), bar_y - 12, over, kFontPx, "end", "fill=\"#b00020\" font-weight=\"bold\"");
  }
  if (c.total_memory && *c.total_memory != c.capacity) {
    const double xm = sx.map(*c.total_memory);
    out += line(xm, bar_y - 30, xm, bar_y + bar_h + 8, "#888888", 1.5, " stroke-dasharray=\"3 3\"");
  }
  const double xc = sx.map(c.capacity);
  out += line(xc, bar_y - 32, xc, bar_y + bar_h + 8, "#b00020", 2.5, " stroke-dasharray=\"6 3\"");
  const double cw = text_width_px(c.capacity_label, kFontPx);
  out += text(xc + cw + 4 > px1 ? xc - 4 : xc + 4, bar_y - 36, c.capacity_label, kFontPx, xc + cw + 4 > px1 ? "end" : "start",
              "fill=\"#b00020\"");
  // Legend with values.
  double lx = px0;
  double ly = axis_y + 62;
  for (const auto& s : c.segments) {
    const std::string label = s.name + " " + fmtv(s.value);
    const double w = text_width_px(label, kFontPx) + 34;
    if (lx + w > px1) {
      lx = px0;
      ly += 20;
    }
    out += rect(lx, ly - 11, 14, 14, s.color);
    out += text(lx + 20, ly, label, kFontPx);
    lx += w;
  }
  out += "</svg>\n";
  return out;
}

}  // namespace rooftop::reports::svg
