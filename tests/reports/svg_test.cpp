// The SVG writer's geometry: ticks, scale mapping, escaping, well-formed output without NaN.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "reports/svg.h"

using namespace rooftop::reports::svg;

namespace {

std::vector<double> values(const std::vector<Tick>& t) {
  std::vector<double> v;
  for (const auto& x : t) v.push_back(x.value);
  return v;
}

// Balanced tags: every <name ...> has its </name> in order; self-closing tags and comments skipped.
// Also checks attributes are separated by spaces (name="v" name2="v2").
bool well_formed(const std::string& s) {
  std::vector<std::string> stack;
  size_t i = 0;
  while ((i = s.find('<', i)) != std::string::npos) {
    const size_t j = s.find('>', i);
    if (j == std::string::npos) return false;
    std::string tag = s.substr(i + 1, j - i - 1);
    i = j + 1;
    if (tag.empty()) return false;
    if (tag[0] == '/') {
      if (stack.empty() || stack.back() != tag.substr(1)) return false;
      stack.pop_back();
      continue;
    }
    if (std::regex_search(tag, std::regex("\"[A-Za-z-]+="))) return false;  // attribute glued to the previous one
    const bool self = tag.back() == '/';
    const std::string name = tag.substr(0, tag.find_first_of(" /"));
    if (!self) stack.push_back(name);
  }
  return stack.empty();
}

}  // namespace

TEST_CASE("linear ticks land on 1-2-5 steps", "[svg]") {
  CHECK(values(linear_ticks(0, 7.3, 8)) == std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(values(linear_ticks(0, 7.3, 5)) == std::vector<double>{0, 2, 4, 6});
  CHECK(values(linear_ticks(0, 100, 6)) == std::vector<double>{0, 20, 40, 60, 80, 100});
  const auto t = linear_ticks(-0.3, 0.3, 7);  // step 0.1: -0.3 .. 0.3, zero exactly zero
  REQUIRE(t.size() == 7);
  CHECK(t[3].value == 0.0);
  CHECK(t[3].label == "0");
  CHECK(linear_ticks(5, 5).empty());
  CHECK(linear_ticks(0, NAN).empty());
}

TEST_CASE("log ticks are the powers of ten inside the range", "[svg]") {
  CHECK(values(log_ticks(1, 1e4)) == std::vector<double>{1, 10, 100, 1000, 10000});
  const auto t = log_ticks(1, 1e4);
  CHECK(t[3].label == "1k");
  CHECK(t[4].label == "10k");
  CHECK(values(log_ticks(3, 500)) == std::vector<double>{10, 100});
  // 1e0 .. 1e20 is 21 powers; thinned to every other one (stride 3 for max 10 ticks: 0,3,..,18).
  const auto many = log_ticks(1, 1e20, 10);
  CHECK(many.size() <= 10);
  CHECK(many.front().value == 1);
  CHECK(log_ticks(0, 10).empty());
}

TEST_CASE("SI labels", "[svg]") {
  CHECK(si(0) == "0");
  CHECK(si(1) == "1");
  CHECK(si(2.5) == "2.5");
  CHECK(si(1000) == "1k");
  CHECK(si(20000) == "20k");
  CHECK(si(3.35e12) == "3.35T");
  CHECK(si(989e12) == "989T");
  CHECK(si(1e15) == "1P");
  CHECK(si(0.1) == "0.1");
  CHECK(si(-4e6) == "-4M");
  CHECK(si(NAN) == "n/a");
}

TEST_CASE("scales map data onto pixels, linear and log", "[svg]") {
  Scale lin{0, 10, 100, 600, false};
  CHECK(lin.map(0) == Approx(100));
  CHECK(lin.map(5) == Approx(350));
  CHECK(lin.map(10) == Approx(600));
  Scale log{1, 1e4, 400, 0, true};  // y grows downwards
  CHECK(log.map(1) == Approx(400));
  CHECK(log.map(100) == Approx(200));  // two of four decades
  CHECK(log.map(1e4) == Approx(0));
  CHECK(std::isfinite(log.map(0)));
  CHECK(std::isfinite(log.map(-5)));
  Scale flat{3, 3, 0, 100, false};
  CHECK(flat.map(3) == Approx(50));
}

TEST_CASE("XML escaping", "[svg]") {
  CHECK(escape("a<b & c>\"d'") == "a&lt;b &amp; c&gt;&quot;d&#39;");
  LineChart c;
  c.title = "<script>&";
  c.series.push_back({"x<y", "#000000", {{1, 2}, {2, 3}}});
  const auto s = render(c);
  CHECK(s.find("<script>") == std::string::npos);
  CHECK(s.find("&lt;script&gt;&amp;") != std::string::npos);
  CHECK(well_formed(s));
}

TEST_CASE("random charts are well formed and carry no NaN", "[svg]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.01, 1e6);
  for (int trial = 0; trial < 20; ++trial) {
    LineChart c;
    c.title = "trial " + std::to_string(trial);
    c.x = {"x (units)", trial % 2 == 0, {}, {}};
    c.y = {"y (units)", trial % 3 == 0, {}, {}};
    Series s{"s", "#123456", {}, true, true};
    for (int i = 0; i < 12; ++i) s.points.push_back({u(rng), u(rng)});
    s.points.push_back({0, -1});  // off a log axis: must not produce NaN
    c.series.push_back(s);
    for (int i = 0; i < 6; ++i) c.labels.push_back({u(rng), u(rng), "point " + std::to_string(i)});
    c.refs.push_back({true, u(rng), "ref"});
    const auto out = render(c);
    CHECK(out.find("nan") == std::string::npos);
    CHECK(out.find("inf") == std::string::npos);
    CHECK(well_formed(out));
    BarChart b;
    b.title = "bars";
    for (int i = 0; i < 14; ++i) b.bars.push_back({"chip" + std::to_string(i), u(rng), "#1f77b4", i % 3 ? "" : "won't fit"});
    const auto bo = render(b);
    CHECK(bo.find("nan") == std::string::npos);
    CHECK(well_formed(bo));
    StackedBar sb;
    sb.segments = {{"a", u(rng), "#111111"}, {"b", u(rng), "#222222"}};
    sb.capacity = u(rng);
    const auto so = render(sb);
    CHECK(so.find("nan") == std::string::npos);
    CHECK(well_formed(so));
  }
}

TEST_CASE("bar lengths are proportional to values", "[svg]") {
  BarChart b;
  b.bars = {{"a", 100, "#aa0000", ""}, {"b", 50, "#00aa00", ""}};
  const auto s = render(b);
  std::smatch m;
  std::regex re("<rect x=\"([0-9.]+)\" y=\"[0-9.]+\" width=\"([0-9.]+)\" height=\"[0-9.]+\" fill=\"#(aa0000|00aa00)\"");
  std::vector<double> widths;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it) widths.push_back(std::stod((*it)[2]));
  REQUIRE(widths.size() == 2);
  CHECK(widths[1] == Approx(widths[0] / 2).margin(0.2));
}

TEST_CASE("tick labels that would overlap are skipped", "[svg]") {
  // A narrow chart with 10 decades: the labels cannot all fit, so some are dropped, none overlap.
  LineChart c;
  c.width_px = 200;
  c.x = {"x", true, 1.0, 1e9};
  c.series.push_back({"s", "#000000", {{1, 1}, {1e9, 2}}});
  const auto s = render(c);
  std::regex re("<text x=\"([0-9.]+)\" y=\"([0-9.]+)\" font-size=\"12\" text-anchor=\"middle\"[^>]*>([^<]+)</text>");
  std::vector<std::pair<double, std::string>> xs;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it)
    xs.push_back({std::stod((*it)[1]), (*it)[3]});
  REQUIRE(xs.size() >= 2);
  CHECK(xs.size() < 10);
  for (size_t i = 1; i < xs.size(); ++i)
    CHECK(xs[i].first - text_width_px(xs[i].second, 12) / 2 >= xs[i - 1].first + text_width_px(xs[i - 1].second, 12) / 2);
}

TEST_CASE("point labels are nudged apart", "[svg]") {
  LineChart c;
  c.series.push_back({"s", "#000000", {{1, 1}, {100, 100}}});
  for (int i = 0; i < 4; ++i) c.labels.push_back({50, 50, "same place " + std::to_string(i)});
  const auto s = render(c);
  std::regex re("<text x=\"([0-9.]+)\" y=\"([0-9.]+)\" font-size=\"11\"[^>]*>same place");
  std::vector<std::pair<double, double>> at;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it)
    at.push_back({std::stod((*it)[1]), std::stod((*it)[2])});
  REQUIRE(at.size() == 4);
  for (size_t i = 0; i < at.size(); ++i)
    for (size_t j = i + 1; j < at.size(); ++j) CHECK((at[i].first != at[j].first || std::fabs(at[i].second - at[j].second) >= 12));
}
