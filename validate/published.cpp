// parse_published / load_published: the strict loader of the published-measurements dataset.
#include "validate/published.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "analyzer/embedded_file.h"
#include "base/errors.h"
#include "base/files.h"
#include "base/limits.h"
#include "base/yaml.h"

namespace rooftop {
extern const EmbeddedFile embedded_published[];
extern const std::size_t embedded_published_count;
}  // namespace rooftop

namespace rooftop::validate {
namespace {

const std::set<std::string> kSourceKeys = {"url", "title", "where", "date"};
const std::set<std::string> kTopKeys = {"source", "engine", "engine_version", "harness", "records"};
const std::set<std::string> kRecordKeys = {"hw", "hw_count", "tp", "pp", "interconnect", "power_limit_w", "model", "weights", "kv",
                                           "batch", "request_rate", "prompt_tokens", "output_tokens", "ubatch", "metric", "value",
                                           "value_as_printed", "notes"};
const std::set<std::string> kRequired = {"hw", "hw_count", "model", "weights", "batch", "metric", "value"};

struct Where {
  const std::string& file;
  [[noreturn]] void fail(const YAML::Node& n, const std::string& key, const std::string& what) const {
    const int line = n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
    throw InputError(file + ":" + std::to_string(line) + ": " + key + ": " + what);
  }
};

std::string text(const YAML::Node& n, const Where& w, const std::string& key) {
  if (!n.IsScalar() || n.Scalar().empty()) w.fail(n, key, "expected a non-empty string");
  return n.Scalar();
}

bool is_null(const YAML::Node& n) { return !n || n.IsNull() || (n.IsScalar() && n.Scalar() == "null"); }

double number(const YAML::Node& n, const Where& w, const std::string& key, double lo, double hi) {
  double v = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, v)) w.fail(n, key, "got '" + printable(n.IsScalar() ? n.Scalar() : "a list or map") + "'; expected a number");
  if (!std::isfinite(v) || v < lo || v > hi)
    w.fail(n, key, "got " + printable(n.Scalar()) + "; expected a number from " + std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

int64_t whole(const YAML::Node& n, const Where& w, const std::string& key, int64_t lo, int64_t hi) {
  long long v = 0;
  if (!n.IsScalar() || !YAML::convert<long long>::decode(n, v)) w.fail(n, key, "expected a whole number");
  if (v < lo || v > hi) w.fail(n, key, "got " + std::to_string(v) + "; expected " + std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

void only_known_keys(const YAML::Node& map, const std::set<std::string>& keys, const Where& w, const std::string& where) {
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string k = it->first.IsScalar() ? it->first.Scalar() : "?";
    if (!keys.count(k)) {
      std::string valid;
      for (const auto& v : keys) valid += (valid.empty() ? "" : ", ") + v;
      w.fail(it->first, where + printable(k), "unknown key; expected one of " + valid);
    }
    if (!seen.insert(k).second) w.fail(it->first, where + k, "duplicate key");
  }
}

// The conditions that make two records the same measurement.
std::string condition_key(const PublishedRecord& r, const std::string& engine) {
  return engine + "|" + r.hw + "|" + std::to_string(r.hw_count) + "|" + std::to_string(r.tp) + "x" + std::to_string(r.pp) + "|" + r.model + "|" + r.weights + "|" + r.kv + "|" +
         std::to_string(r.batch.value_or(-1)) + "|" + std::to_string(r.request_rate.value_or(-1)) + "|" + std::to_string(r.prompt_tokens.value_or(-1)) + "|" +
         std::to_string(r.output_tokens.value_or(-1)) + "|" + std::to_string(r.ubatch.value_or(-1)) + "|" + r.metric + "|" + r.interconnect + "|" + r.notes;
}

}  // namespace

const std::vector<std::string>& published_metrics() {
  static const std::vector<std::string> m = {"tg_tok_s", "pp_tok_s", "ttft_s", "tpot_s", "throughput_tok_s", "total_tok_s", "request_s"};
  return m;
}

void parse_published(std::string_view yaml_text, const std::string& file, PublishedDataset& data) {
  const Where w{file};
  const YAML::Node root = parse_yaml(yaml_text, file);
  if (!root.IsMap()) throw InputError(file + ":1: expected a map with source, engine, engine_version, records");
  only_known_keys(root, kTopKeys, w, "");
  for (const char* k : {"source", "engine", "records"})
    if (!root[k]) w.fail(root, k, "missing");
  PublishedSource s;
  s.file = file;
  const YAML::Node src = root["source"];
  if (!src.IsMap()) w.fail(src, "source", "expected a map with url, title, where, date");
  only_known_keys(src, kSourceKeys, w, "source.");
  if (!src["url"]) w.fail(src, "source.url", "missing: every record needs the page its numbers are printed on");
  s.url = text(src["url"], w, "source.url");
  if (s.url.rfind("https://", 0) != 0 && s.url.rfind("http://", 0) != 0) w.fail(src["url"], "source.url", "expected an http(s) address");
  if (!src["where"]) w.fail(src, "source.where", "missing: say which table or figure the values come from");
  s.where = text(src["where"], w, "source.where");
  if (src["title"]) s.title = text(src["title"], w, "source.title");
  if (!is_null(src["date"])) s.date = text(src["date"], w, "source.date");
  s.engine = text(root["engine"], w, "engine");
  s.engine_version = root["engine_version"] && !is_null(root["engine_version"]) ? text(root["engine_version"], w, "engine_version") : "unknown";
  if (root["harness"]) {
    const std::string h = text(root["harness"], w, "harness");
    if (h != "client" && h != "in_process")
      w.fail(root["harness"], "harness", "got '" + printable(h) + "'; expected client (a client of a server measured it) or in_process");
    s.client = h == "client";
  }
  const YAML::Node recs = root["records"];
  if (!recs.IsSequence() || recs.size() == 0) w.fail(recs, "records", "expected a non-empty list");

  const int source_index = static_cast<int>(data.sources.size());
  std::vector<PublishedRecord> parsed;
  for (const auto& n : recs) {
    if (!n.IsMap()) w.fail(n, "records[]", "expected a map");
    only_known_keys(n, kRecordKeys, w, "");
    for (const auto& k : kRequired)
      if (!n[k]) w.fail(n, k, "missing");
    PublishedRecord r;
    r.source = source_index;
    r.line = n.Mark().line + 1;
    r.hw = text(n["hw"], w, "hw");
    r.hw_count = whole(n["hw_count"], w, "hw_count", 1, limits::kDevices);
    r.tp = n["tp"] ? whole(n["tp"], w, "tp", 1, limits::kDevices) : 0;
    r.pp = n["pp"] ? whole(n["pp"], w, "pp", 1, limits::kDevices) : 0;
    if (std::max<int64_t>(r.tp, 1) * std::max<int64_t>(r.pp, 1) > r.hw_count)
      w.fail(n["tp"] ? n["tp"] : n, "tp", "tp x pp = " + std::to_string(std::max<int64_t>(r.tp, 1) * std::max<int64_t>(r.pp, 1)) + " exceeds hw_count " +
                                              std::to_string(r.hw_count) + "; expected at most the devices used");
    r.interconnect = is_null(n["interconnect"]) ? "" : text(n["interconnect"], w, "interconnect");
    if (!is_null(n["power_limit_w"])) r.power_limit_w = number(n["power_limit_w"], w, "power_limit_w", 1, 1e6);
    r.model = text(n["model"], w, "model");
    r.weights = text(n["weights"], w, "weights");
    r.kv = is_null(n["kv"]) ? "default" : text(n["kv"], w, "kv");
    if (!is_null(n["batch"])) r.batch = whole(n["batch"], w, "batch", 1, limits::kBatch);
    if (!is_null(n["request_rate"])) r.request_rate = number(n["request_rate"], w, "request_rate", 1e-6, 1e9);
    if (!is_null(n["prompt_tokens"])) r.prompt_tokens = whole(n["prompt_tokens"], w, "prompt_tokens", 0, limits::kContext);
    if (!is_null(n["output_tokens"])) r.output_tokens = whole(n["output_tokens"], w, "output_tokens", 0, limits::kContext);
    if (!is_null(n["ubatch"])) r.ubatch = whole(n["ubatch"], w, "ubatch", 1, limits::kContext);
    r.metric = text(n["metric"], w, "metric");
    const auto& metrics = published_metrics();
    if (std::find(metrics.begin(), metrics.end(), r.metric) == metrics.end())
      w.fail(n["metric"], "metric", "unknown '" + printable(r.metric) + "'; expected tg_tok_s, pp_tok_s, ttft_s, tpot_s, throughput_tok_s, total_tok_s or request_s");
    r.value = number(n["value"], w, "value", 0, 1e12);
    if (r.value <= 0) w.fail(n["value"], "value", "got 0; expected the positive number printed in the source");
    if (!is_null(n["value_as_printed"])) r.value_as_printed = text(n["value_as_printed"], w, "value_as_printed");
    if (!is_null(n["notes"])) r.notes = text(n["notes"], w, "notes");
    parsed.push_back(std::move(r));
  }
  data.sources.push_back(std::move(s));
  // Duplicates: the same conditions twice (in this file or an earlier one) are flagged, not dropped.
  std::map<std::string, size_t> seen;  // conditions -> index of the first record with them
  for (size_t i = 0; i < data.records.size(); ++i)
    seen.emplace(condition_key(data.records[i], data.sources[size_t(data.records[i].source)].engine), i);
  for (auto& r : parsed) {
    const std::string key = condition_key(r, data.sources.back().engine);
    if (auto it = seen.find(key); it != seen.end()) {
      const PublishedRecord& first = data.records[it->second];
      data.duplicates.push_back(file + ":" + std::to_string(r.line) + " duplicates " +
                                data.sources[size_t(first.source)].file + ":" + std::to_string(first.line));
    }
    seen.emplace(key, data.records.size());
    data.records.push_back(std::move(r));
  }
}

PublishedDataset load_published(const std::vector<std::string>& extra_dirs, bool embedded) {
  PublishedDataset data;
  for (std::size_t i = 0; embedded && i < embedded_published_count; ++i)
    parse_published(embedded_published[i].content, "validate/published/" + std::string(embedded_published[i].name), data);
  for (const auto& dir : extra_dirs)
    for (const auto& f : list_files(dir, {".yaml"}, "folder of published records"))
      parse_published(read_text_file(f, "published records"), f, data);
  return data;
}

}  // namespace rooftop::validate
