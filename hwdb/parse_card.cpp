// parse_card: one YAML chip card -> ChipSpec, rejecting unknown, duplicate, mistyped or non-positive entries.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

#include "base/suggest.h"
#include "base/limits.h"
#include "base/yaml.h"
#include "hwdb/card_keys.h"
#include "hwdb/hwdb.h"

namespace rooftop::hwdb {
namespace {

// Error context: every message reads "file:chip:key: what was wrong; expected ... (line N)".
struct Where {
  const std::string& file;
  std::string chip = "?";
  [[noreturn]] void fail(const std::string& key, const std::string& what, const YAML::Node* node = nullptr) const {
    std::string msg = file + ":" + chip + ":" + key + ": " + what;
    if (node && !node->Mark().is_null()) msg += " (line " + std::to_string(node->Mark().line + 1) + ")";
    throw InputError(msg);
  }
};

std::string scalar_text(const YAML::Node& n) {
  if (n.IsScalar()) return "'" + printable(n.Scalar()) + "'";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a map";
  return "nothing";
}

// The keys of a map node, in order; a key seen twice is an error (yaml-cpp keeps both silently).
std::vector<std::pair<std::string, YAML::Node>> map_entries(const YAML::Node& map, const Where& w,
                                                            const std::string& prefix) {
  std::vector<std::pair<std::string, YAML::Node>> out;
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!it->first.IsScalar()) w.fail(prefix + "?", "a key must be a plain name", &it->first);
    std::string key = it->first.Scalar();
    if (!seen.insert(key).second)
      w.fail(prefix + key, "duplicate key; expected each key once", &it->first);
    out.emplace_back(key, it->second);
  }
  return out;
}

std::string as_text(const YAML::Node& n, const Where& w, const std::string& key, const char* expected) {
  if (!n.IsScalar() || n.Scalar().empty()) w.fail(key, std::string("got ") + scalar_text(n) + "; expected " + expected, &n);
  return n.Scalar();
}

// A positive finite number up to `max` (base/limits.h: 1e21 for rates, 1e18 for bytes of memory).
double as_positive(const YAML::Node& n, const Where& w, const std::string& key, const char* expected,
                   double max = limits::kRate) {
  double v = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, v))
    w.fail(key, "got " + scalar_text(n) + ", not a number; expected " + expected, &n);
  if (!std::isfinite(v) || v <= 0) w.fail(key, "got " + scalar_text(n) + "; expected " + expected, &n);
  if (v > max) {
    char m[32];
    std::snprintf(m, sizeof m, "%.0e", max);
    w.fail(key, "got " + scalar_text(n) + "; expected " + expected + " of at most " + m, &n);
  }
  return v;
}

int64_t as_count(const YAML::Node& n, const Where& w, const std::string& key, const char* expected) {
  long long v = 0;
  if (!n.IsScalar() || !YAML::convert<long long>::decode(n, v))
    w.fail(key, "got " + scalar_text(n) + ", not an integer; expected " + expected, &n);
  if (v <= 0 || v > limits::kDevices) w.fail(key, "got " + scalar_text(n) + "; expected " + expected + " up to 1000000", &n);
  return v;
}

std::vector<std::string> as_text_list(const YAML::Node& n, const Where& w, const std::string& key,
                                      const char* expected) {
  if (!n.IsSequence()) w.fail(key, "got " + scalar_text(n) + "; expected " + expected, &n);
  std::vector<std::string> out;
  for (const auto& item : n) out.push_back(as_text(item, w, key, "a string in the list"));
  return out;
}

bool valid_id(const std::string& id) {
  if (id.empty() || !(std::islower(static_cast<unsigned char>(id[0])) || std::isdigit(static_cast<unsigned char>(id[0]))))
    return false;
  for (char c : id)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' ||
          c == '.' || c == '_'))
      return false;
  return true;
}

// Peak ratios that only a 2:4-sparse figure would produce. A card whose genuine dense ratios break these
// must say so in a note containing "not sparsity".
std::string sparse_looking(const ChipSpec& c) {
  auto p = [&](const char* f) { return c.peak(f).value_or(0.0); };
  double half = std::max(p("bf16"), p("fp16"));
  if (p("bf16") > 0 && p("fp16") > 0 && (p("bf16") > 2.2 * p("fp16") || p("fp16") > 2.2 * p("bf16")))
    return "bf16 and fp16 differ by more than 2.2x";
  if (half > 0 && p("tf32") > 0.55 * half) return "tf32 is more than 0.55x the 16-bit rate";
  if (half > 0 && p("fp8") > 2.1 * half) return "fp8 is more than 2.1x the 16-bit rate";
  if (half > 0 && p("int8") > 4.2 * half) return "int8 is more than 4.2x the 16-bit rate";
  if (p("fp8") > 0 && p("fp4") > 4.1 * p("fp8")) return "fp4 is more than 4.1x the fp8 rate";
  return "";
}

}  // namespace

ChipSpec parse_card(std::string_view yaml_text, const std::string& file) {
  Where w{file};
  const YAML::Node root = parse_yaml(yaml_text, file);
  if (!root.IsMap()) throw InputError(file + ": expected a chip card (a map of keys such as id, memory_bytes)");

  const auto& keys = card_keys();
  std::vector<std::string> key_names;
  for (const auto& k : keys) key_names.push_back(k.name);

  for (auto it = root.begin(); it != root.end(); ++it)  // name the chip in every message, duplicates included
    if (it->first.IsScalar() && it->first.Scalar() == "id" && it->second.IsScalar()) w.chip = it->second.Scalar();
  auto entries = map_entries(root, w, "");

  ChipSpec c;
  c.file = file;
  std::set<std::string> present;
  YAML::Node provenance_node;
  bool has_provenance = false;
  for (const auto& [key, node] : entries) {
    const CardKey* spec = nullptr;
    for (const auto& k : keys)
      if (key == k.name) spec = &k;
    if (!spec) {
      auto near = closest_matches(key, key_names, 1);
      w.fail(key, "unknown key" + (near.empty() ? std::string() : "; did you mean '" + near[0] + "'?"), &node);
    }
    present.insert(key);
    const char* exp = spec->expected;
    if (key == "id") {
      c.id = as_text(node, w, key, exp);
      if (!valid_id(c.id)) w.fail(key, "got '" + c.id + "'; expected " + exp, &node);
    } else if (key == "name") c.name = as_text(node, w, key, exp);
    else if (key == "vendor") c.vendor = as_text(node, w, key, exp);
    else if (key == "kind") {
      c.kind = as_text(node, w, key, exp);
      if (c.kind != "gpu" && c.kind != "accelerator" && c.kind != "cpu" && c.kind != "soc")
        w.fail(key, "got '" + c.kind + "'; expected " + exp, &node);
    } else if (key == "architecture") {
      c.architecture = as_text(node, w, key, exp);
      const auto& names = architectures();
      if (std::find(names.begin(), names.end(), c.architecture) == names.end())
        w.fail(key, "got '" + printable(c.architecture, 40) + "'; expected one of " + [&] { std::string all; for (const auto& a : names) all += (all.empty() ? "" : ", ") + a; return all; }(), &node);
    } else if (key == "memory_bytes") c.memory_bytes = as_positive(node, w, key, exp, limits::kMemoryBytes);
    else if (key == "memory_bandwidth_bytes_per_s") c.memory_bandwidth_bytes_per_s = as_positive(node, w, key, exp);
    else if (key == "tdp_watts") c.tdp_watts = as_positive(node, w, key, exp);
    else if (key == "usd_per_hour") c.usd_per_hour = as_positive(node, w, key, exp);
    else if (key == "usd_per_hour_date") c.usd_per_hour_date = as_text(node, w, key, exp);
    else if (key == "usd_per_hour_source") c.usd_per_hour_source = as_text(node, w, key, exp);
    else if (key == "scaleup_bandwidth_bytes_per_s") c.scaleup_bandwidth_bytes_per_s = as_positive(node, w, key, exp);
    else if (key == "scaleup_domain_size") c.scaleup_domain_size = as_count(node, w, key, exp);
    else if (key == "scaleout_bandwidth_bytes_per_s") c.scaleout_bandwidth_bytes_per_s = as_positive(node, w, key, exp);
    else if (key == "l2_bytes") c.l2_bytes = as_positive(node, w, key, exp, limits::kMemoryBytes);
    else if (key == "sram_bytes") c.sram_bytes = as_positive(node, w, key, exp, limits::kMemoryBytes);
    else if (key == "compute_units") c.compute_units = as_count(node, w, key, exp);
    else if (key == "boost_clock_hz") {  // Hz: a figure below 10 MHz is a clock written in MHz or GHz
      c.boost_clock_hz = as_positive(node, w, key, exp, 1e10);
      if (*c.boost_clock_hz < 1e7) w.fail(key, "got " + scalar_text(node) + "; expected " + exp + ", in Hz (1.41 GHz is 1.41e9)", &node);
    }
    else if (key == "sources") c.sources = as_text_list(node, w, key, exp);
    else if (key == "notes") c.notes = as_text_list(node, w, key, exp);
    else if (key == "provenance") {
      provenance_node = node;
      has_provenance = true;
    }
    else if (key == "peak_flops") {
      if (!node.IsMap() || node.size() == 0) w.fail(key, "got " + scalar_text(node) + "; expected " + exp, &node);
      for (const auto& [fmt, value] : map_entries(node, w, "peak_flops.")) {
        const auto& formats = flops_formats();
        if (std::find(formats.begin(), formats.end(), fmt) == formats.end()) {
          auto near = closest_matches(fmt, formats, 1);
          w.fail("peak_flops." + fmt, "unknown compute format; did you mean '" + near.at(0) + "'?", &value);
        }
        c.peak_flops[fmt] = as_positive(value, w, "peak_flops." + fmt, "a positive dense FLOP/s rate");
      }
    }
  }
  for (const auto& k : keys)
    if (k.required && !present.count(k.name)) w.fail(k.name, std::string("missing required key; expected ") + k.expected);
  if (c.sources.empty()) w.fail("sources", "empty list; expected at least one datasheet or vendor page URL");
  if (c.usd_per_hour && (c.usd_per_hour_date.empty() || c.usd_per_hour_source.empty()))
    w.fail("usd_per_hour", "a price needs usd_per_hour_date and usd_per_hour_source beside it");

  // Provenance: "datasheet" for every figure present, "assumed" for a price, then the card's overrides.
  for (const auto& k : keys)
    if ((k.value == CardValue::positive || k.value == CardValue::count) && present.count(k.name))
      c.provenance[k.name] = std::string(k.name) == "usd_per_hour" ? "assumed" : "datasheet";
  for (const auto& [fmt, v] : c.peak_flops) c.provenance["peak_flops." + fmt] = "datasheet";
  if (has_provenance) {
    if (!provenance_node.IsMap()) w.fail("provenance", "expected a map of figure key -> datasheet|derived|assumed");
    for (const auto& [key, value] : map_entries(provenance_node, w, "provenance.")) {
      if (!c.provenance.count(key)) {
        auto near = closest_matches(key, provenance_keys(), 1);
        w.fail("provenance." + key, "names no figure of this card; expected one of its numeric keys" +
                                        (near.empty() ? std::string() : ", e.g. '" + near[0] + "'"), &value);
      }
      std::string how = as_text(value, w, "provenance." + key, "datasheet, derived or assumed");
      if (how != "datasheet" && how != "derived" && how != "assumed")
        w.fail("provenance." + key, "got '" + how + "'; expected datasheet, derived or assumed", &value);
      c.provenance[key] = how;
    }
  }

  std::string sparse = sparse_looking(c);
  if (!sparse.empty()) {
    bool explained = false;
    for (const auto& n : c.notes) explained = explained || n.find("not sparsity") != std::string::npos;
    if (!explained)
      w.fail("peak_flops", sparse + ", which looks like a 2:4-sparse figure; expected dense rates (halve sparse ones)"
                           " or a note saying the ratio is 'not sparsity'");
  }
  return c;
}

}  // namespace rooftop::hwdb
