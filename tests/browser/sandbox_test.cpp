// The interactive sandbox in headless Chromium: 20 random input sets applied through the page's controls must
// show what `rooftop fit` and `rooftop speed` print for the same inputs (to 3 significant figures), and a bad
// price must show the CLI's own error text, never NaN.
#include <catch2/catch.hpp>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "tests/browser/browser_util.h"

namespace fs = std::filesystem;
using nlohmann::json;
using rooftop::test::chromium_cmd;
using rooftop::test::shell;
using rooftop::test::slurp;

namespace {

const std::string kRooftop = std::string(ROOFTOP_BINARY_DIR) + "/rooftop";

std::string url_encode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.') {
      out += char(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

// The text of <pre id="selftest"> (or of the element with `id`) in Chromium's DOM dump, entities undone.
std::string element_text(const std::string& dom, const std::string& id) {
  const std::string open = "id=\"" + id + "\"";
  size_t at = dom.find(open);
  REQUIRE(at != std::string::npos);
  at = dom.find('>', at) + 1;
  std::string t = dom.substr(at, dom.find('<', at) - at);
  for (const auto& [entity, ch] : {std::pair<std::string, std::string>{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}})
    for (size_t p = 0; (p = t.find(entity, p)) != std::string::npos; p += ch.size()) t.replace(p, entity.size(), ch);
  return t;
}

std::string dump_dom(const fs::path& dir, const fs::path& html, const std::string& fragment) {
  const fs::path dom = dir / "page.dom";
  REQUIRE(shell(chromium_cmd(dir / "profile") + " --dump-dom 'file://" + html.string() + "#" + fragment + "' > " + dom.string() +
                " 2> /dev/null") == 0);
  return slurp(dom);
}

// The CLI's JSON for a command line; rc 2 (bad input) gives null and its stderr line in `err`.
json cli_json(const std::string& args, const fs::path& dir, std::string* err = nullptr) {
  const fs::path out = dir / "cli.json", e = dir / "cli.err";
  const int rc = shell(kRooftop + " " + args + " --format json > " + out.string() + " 2> " + e.string());
  if (rc != 0) {
    REQUIRE(rc == 2);
    if (err) *err = slurp(e);
    return nullptr;
  }
  return json::parse(slurp(out));
}

void check_close(const json& shown, const std::string& id, double expected) {
  INFO(id << " shown " << shown.value(id, std::string("(missing)")) << " (" << shown.value(id + "-text", std::string()) << "), CLI "
          << expected);
  REQUIRE(shown.contains(id));
  const std::string v = shown[id].get<std::string>();
  REQUIRE_FALSE(v.empty());
  CHECK(std::stod(v) == Approx(expected).epsilon(5e-4));  // 3 significant figures
}

}  // namespace

TEST_CASE("the interactive sandbox shows the CLI's numbers for 20 random input sets, and the CLI's error for a bad price", "[browser]") {
  REQUIRE(shell("command -v chromium > /dev/null") == 0);  // installed by scripts/setup.sh
  const fs::path dir = fs::temp_directory_path() / ("rooftop-sandbox-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path html = dir / "sandbox.html";
  const std::vector<std::string> models = {"llama-3.1-8b", "mixtral-8x7b"}, chips = {"h100-sxm", "rtx-4090"},
                                 precisions = {"bf16", "fp8", "int4"};
  REQUIRE(shell(kRooftop + " report --interactive -m llama-3.1-8b,mixtral-8x7b --hw h100-sxm,rtx-4090 -p bf16,fp8,int4 "
                "--format html -o " + html.string()) == 0);
  const std::string page = slurp(html);
  for (const char* bad : {"src=", "href=", "<link", "@import", "<img", "<iframe"}) CHECK(page.find(bad) == std::string::npos);

  std::mt19937 rng(2026);
  auto pick = [&](const auto& v) { return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)]; };
  const std::vector<int64_t> tps = {1, 2, 4, 8}, contexts = {1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072},
                             batches = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  json sets = json::array();
  for (int i = 0; i < 20; ++i) {
    const double price = std::round(std::uniform_real_distribution<double>(0.5, 12.0)(rng) * 100) / 100;
    sets.push_back({{"model", pick(models)}, {"hw", pick(chips)}, {"precision", pick(precisions)}, {"tp", pick(tps)},
                    {"context", pick(contexts)}, {"batch", pick(batches)}, {"price", price}});
  }
  const std::string dom = dump_dom(dir, html, "sets=" + url_encode(sets.dump()));
  CHECK(dom.find("NaN") == std::string::npos);
  const json shown = json::parse(element_text(dom, "selftest"));
  REQUIRE(shown.size() == sets.size());
  int compared = 0;
  for (size_t i = 0; i < sets.size(); ++i) {
    const json& s = sets[i];
    const std::string common = "-m " + s["model"].get<std::string>() + " --hw " + s["hw"].get<std::string>() + " -p " +
                               s["precision"].get<std::string>() + " --tp " + std::to_string(s["tp"].get<int64_t>()) +
                               " --context " + std::to_string(s["context"].get<int64_t>()) + " -b " +
                               std::to_string(s["batch"].get<int64_t>());
    INFO("set " << i << ": " << common << " --usd-per-hour " << s["price"].get<double>());
    std::string err;
    const json sp = cli_json("speed " + common + " --usd-per-hour " + std::to_string(s["price"].get<double>()), dir, &err);
    const json& v = shown[i];
    if (sp.is_null()) {  // the CLI refuses these inputs: the page says so and shows no number
      INFO("CLI: " << err);
      CHECK_FALSE(v["error"].get<std::string>().empty());
      CHECK(v["out-tpot"].get<std::string>().empty());
      continue;
    }
    const json fit = cli_json("fit " + common, dir);
    REQUIRE_FALSE(fit.is_null());
    CHECK(v["error"].get<std::string>().empty());
    const json& p = sp["points"][0];
    check_close(v, "out-ttft", p["ttft_s"].get<double>());
    check_close(v, "out-tpot", p["tpot_s"].get<double>());
    check_close(v, "out-stream", p["decode_tokens_per_s_per_stream"].get<double>());
    check_close(v, "out-total-tps", p["decode_tokens_per_s"].get<double>());
    check_close(v, "out-cost", p["usd_per_mtok_output"].get<double>());
    check_close(v, "out-total", fit["total_bytes"].get<double>());
    check_close(v, "out-weights", fit["weights_bytes_per_device"].get<double>());
    check_close(v, "out-kv", fit["kv_bytes_per_device"].get<double>());
    check_close(v, "out-max-batch", double(fit["max_batch"].get<int64_t>()));
    check_close(v, "out-max-context", double(fit["max_context"].get<int64_t>()));
    CHECK(v["out-fits"].get<std::string>() == (fit["fits"].get<bool>() ? "1" : "0"));
    ++compared;
  }
  CHECK(compared >= 15);  // most random sets are valid inputs (tp on chips with a link figure)

  // A bad price through the URL: the CLI's own message, no cost, no NaN.
  for (const std::string price : {"-1", "abc"}) {
    INFO("price " << price);
    std::string err;
    CHECK(cli_json("speed -m llama-3.1-8b --hw h100-sxm --usd-per-hour " + price, dir, &err).is_null());
    const std::string d = dump_dom(dir, html, "model=llama-3.1-8b&hw=h100-sxm&price=" + price);
    const std::string msg = element_text(d, "error");
    REQUIRE_FALSE(msg.empty());
    CHECK(err.find(msg) != std::string::npos);  // "rooftop: <msg> (see rooftop --help)"
    CHECK(element_text(d, "out-cost") == "—");
    CHECK(d.find("NaN") == std::string::npos);
  }
  fs::remove_all(dir);
}
