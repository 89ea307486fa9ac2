// The project's small SVG chart writer: scales and ticks (1-2-5, powers of ten), line/scatter, bars, stacked bar.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rooftop::reports::svg {

// XML text escaping (& < > " ').
std::string escape(std::string_view s);
// A short number label with an SI prefix: 1, 2.5, 500, 1k, 20k, 3.35T, 0.1, 1m (milli) ...
std::string si(double v);

struct Tick {
  double value = 0;
  std::string label;
};
// Ticks at 1, 2 or 5 x 10^k steps covering [lo, hi], at most about max_ticks of them.
std::vector<Tick> linear_ticks(double lo, double hi, int max_ticks = 8);
// Ticks at every power of ten inside [lo, hi] (lo > 0), thinned to every 10^n when there are too many.
std::vector<Tick> log_ticks(double lo, double hi, int max_ticks = 10);

// Maps a data interval onto a pixel interval (p0 may exceed p1: y grows downwards).
struct Scale {
  double d0 = 0, d1 = 1;  // data range (positive when log)
  double p0 = 0, p1 = 1;  // pixel range
  bool log = false;
  double map(double v) const;  // clamps log input to d0/1e6 and never returns NaN
};

struct Axis {
  std::string title;                 // with unit, e.g. "arithmetic intensity (FLOP/byte)"
  bool log = false;
  std::optional<double> min, max;    // default: from the data (lin: from 0 when all positive)
};

struct Point {
  double x = 0, y = 0;
};
struct Series {
  std::string name, color = "#1f77b4";
  std::vector<Point> points;
  bool line = true, markers = false, dashed = false;
};
struct Label {  // a scatter point with a text label
  double x = 0, y = 0;
  std::string text, color = "#d62728";
  bool hollow = false;
};
struct RefLine {  // a vertical (x = value) or horizontal (y = value) reference line
  bool vertical = true;
  double value = 0;
  std::string label, color = "#555555";
};

struct LineChart {
  std::string title;
  int width_px = 960, height_px = 480;
  Axis x, y;
  std::vector<Series> series;
  std::vector<Label> labels;
  std::vector<RefLine> refs;
};
std::string render(const LineChart& c);

struct Bar {
  std::string label;
  double value = 0;
  std::string color = "#1f77b4";
  std::string note;  // printed after the value, e.g. "won't fit"
};
struct BarChart {  // horizontal bars, one per row
  std::string title, value_title;
  int width_px = 960, height_px = 480;
  std::vector<Bar> bars;
};
std::string render(const BarChart& c);

struct Segment {
  std::string name;
  double value = 0;
  std::string color;
};
struct StackedBar {  // one horizontal bar of segments against a capacity line
  std::string title, value_title;
  int width_px = 960, height_px = 260;
  std::vector<Segment> segments;
  double capacity = 0;               // the limit (usable capacity)
  std::string capacity_label;
  std::optional<double> total_memory;  // the chip's whole memory (a second, lighter line)
  std::string (*format)(double) = nullptr;  // value formatter for labels (default si)
};
std::string render(const StackedBar& c);

// Greedy placement: nudges a label box until it overlaps none already placed; returns false when none fit.
struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};
double text_width_px(std::string_view s, double font_px);  // estimate for layout

}  // namespace rooftop::reports::svg
