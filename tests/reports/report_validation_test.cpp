// The report's "Validated on this machine" section: law chart and summary from a validate record; damaged files.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "../analyzer/seed_models.h"
#include "cli/report_build.h"
#include "reports/report.h"

using namespace rooftop;
namespace fs = std::filesystem;

namespace {

// A host CPU as a chip: 24 GB, 50 GB/s, 1 TFLOP/s fp32 / bf16 (figures invented for the test).
ChipSpec host_cpu() {
  ChipSpec c = test::chip_spec("cpu", "cpu", 24e9, 50e9, {{"fp32", 1e12}, {"bf16", 1e12}, {"fp16", 1e12}});
  c.name = "test CPU";
  return c;
}

cli::ReportInputs inputs(const std::string& validation_file) {
  cli::ReportInputs in;
  in.model = test::smollm2_135m();
  in.chip = host_cpu();
  in.speed.batches = {1, 8};
  in.fit.batch = 1;
  in.fit.context = 4096;
  in.field = {host_cpu()};
  in.validation_file = validation_file;
  return in;
}

// A temporary ROOFTOP_CACHE_DIR for one test, removed (and the variable restored) at the end.
struct TempCache {
  fs::path dir;
  std::string old;
  bool had_old = false;
  explicit TempCache(const std::string& name) {
    dir = fs::temp_directory_path() / ("rooftop-report-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "validation");
    if (const char* o = std::getenv("ROOFTOP_CACHE_DIR")) had_old = true, old = o;
    ::setenv("ROOFTOP_CACHE_DIR", dir.c_str(), 1);
  }
  ~TempCache() {
    if (had_old) ::setenv("ROOFTOP_CACHE_DIR", old.c_str(), 1);
    else ::unsetenv("ROOFTOP_CACHE_DIR");
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file() const { return cli::validation_path(std::getenv("ROOFTOP_CACHE_DIR")); }
  void write(const std::string& text) const { std::ofstream(file()) << text; }
};

size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = 0; (at = s.find(what, at)) != std::string::npos; at += what.size()) ++n;
  return n;
}

}  // namespace

TEST_CASE("a validate record adds the law chart and the summary to the cpu report", "[reports][validation]") {
  TempCache cache("ok");
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> mb(20, 900), eff(0.4, 0.9);
  const double bw = 50e9;
  nlohmann::json points = nlohmann::json::array();
  int decode = 0, compute = 0;
  for (int i = 0; i < 9; ++i) {
    const double bytes = mb(rng) * 1e6;
    const bool prefill = i % 4 == 3;
    decode += !prefill;
    compute += !prefill && i % 5 == 4;
    // Measured below the law bw / bytes by a random efficiency: the law line lies above every point.
    points.push_back({{"model", "m" + std::to_string(i)}, {"format", "q8_0"}, {"phase", prefill ? "prefill" : "decode"},
                      {"bytes_per_token", bytes}, {"measured_tokens_per_s", eff(rng) * bw / bytes},
                      {"bound", i % 5 == 4 ? "compute" : "memory"}});
  }
  const std::string summary = "Analyzer |error|: memory-bound median 7.5%, worst 19.2% (6 points); compute-bound median 30%.";
  const nlohmann::json record = {{"chip", {{"id", "cpu"}, {"name", "test CPU"}, {"memory_bandwidth_bytes_per_s", bw}, {"calibrated", true}}},
                                 {"points", points}, {"summary_line", summary}};
  cache.write(record.dump(2));

  const auto d = cli::build_report(inputs(cache.file()));
  REQUIRE(d.validation_notice.empty());
  REQUIRE(d.validation == record);

  const std::string html = reports::report_html(d);
  const auto section = html.find("Validated on this machine");
  REQUIRE(section != std::string::npos);
  CHECK(html.find(summary) != std::string::npos);
  CHECK(html.find("decode points") != std::string::npos);
  const auto law = html.find("<figure class=\"chart\" id=\"chart-law\">");
  REQUIRE(law != std::string::npos);
  CHECK(html.find("<svg", law) != std::string::npos);
  CHECK(count_of(html, "<svg") == 7);  // the six report charts + the law chart
  // The law's legend names the record's bandwidth: 50e9 B/s = "50.0 GB/s" (three significant digits).
  CHECK(html.find("law: 50.0 GB/s / bytes per token", law) != std::string::npos);
  CHECK(html.find("analyzer says compute-bound", law) != std::string::npos);

  const auto charts = reports::report_charts(d);
  REQUIRE(charts.size() == 7);
  CHECK(charts.back().first == "law");
  CHECK(charts.back().second.rfind("<svg", 0) == 0);
  // One marker per decode point in its bound's colour, plus one legend marker per series (prefill points left out).
  CHECK(count_of(charts.back().second, "<circle") == size_t(decode + 2));
  CHECK(count_of(charts.back().second, "fill=\"#d62728\"") == size_t(compute + 1));

  const std::string md = reports::report_markdown(d, "rep");
  CHECK(md.find("## Validated on this machine") != std::string::npos);
  CHECK(md.find("(rep-law.svg)") != std::string::npos);
  CHECK(md.find(summary) != std::string::npos);
  CHECK(count_of(md, "(rep-law.svg)") == 1);

  const std::string text = reports::report_text(d);
  CHECK(text.find("Validated on this machine") != std::string::npos);
  CHECK(text.find(summary) != std::string::npos);
  CHECK(text.find(std::to_string(decode) + " decode points") != std::string::npos);

  const auto j = reports::report_json(d);
  REQUIRE(j.contains("validation"));
  CHECK(j["validation"] == record);
}

TEST_CASE("a damaged validate record is one line in the report, and skipped", "[reports][validation]") {
  TempCache cache("damaged");
  SECTION("not JSON") { cache.write("{\"chip\": {\"memory_bandwidth_bytes_per_s\": 5e10}, \"points\": [tru"); }
  SECTION("no bandwidth") { cache.write(R"({"chip": {"id": "cpu"}, "points": [], "summary_line": "x"})"); }
  SECTION("a point without its bytes") {
    cache.write(R"({"chip": {"memory_bandwidth_bytes_per_s": 5e10}, "summary_line": "x",
                    "points": [{"phase": "decode", "bound": "memory", "measured_tokens_per_s": 3}]})");
  }
  const auto d = cli::build_report(inputs(cache.file()));
  CHECK(d.validation.is_null());
  REQUIRE_FALSE(d.validation_notice.empty());
  CHECK(d.validation_notice.find('\n') == std::string::npos);
  CHECK(d.validation_notice.find("damaged") != std::string::npos);
  CHECK(d.validation_notice.find(cache.file()) != std::string::npos);
  const std::string html = reports::report_html(d);
  CHECK(count_of(html, "<svg") == 6);
  CHECK(html.find("chart-law") == std::string::npos);
  CHECK(html.find("is damaged") != std::string::npos);
  CHECK(reports::report_text(d).find(d.validation_notice) != std::string::npos);
  CHECK(reports::report_markdown(d, "rep").find("rep-law.svg") == std::string::npos);
  CHECK(reports::report_json(d)["validation_notice"] == d.validation_notice);
  CHECK(reports::report_charts(d).size() == 6);
}

TEST_CASE("no validate record, or none asked for: the report is unchanged", "[reports][validation]") {
  TempCache cache("none");
  const auto with_missing = cli::build_report(inputs(cache.file()));  // file not written
  const auto without = cli::build_report(inputs(""));
  CHECK(with_missing.validation.is_null());
  CHECK(with_missing.validation_notice.empty());
  CHECK(reports::report_html(with_missing) == reports::report_html(without));
  CHECK_FALSE(reports::report_json(without).contains("validation"));
}
