// Runtime profile cards: see runtime_cards.h.
#include "hwdb/runtime_cards.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "analyzer/embedded_file.h"
#include "base/suggest.h"
#include "base/files.h"
#include "base/yaml.h"
#include "hwdb/card_keys.h"

namespace rooftop {
extern const EmbeddedFile embedded_runtime_cards[];
extern const std::size_t embedded_runtime_cards_count;
}  // namespace rooftop

namespace rooftop::hwdb {
namespace {

struct Reader {
  const std::string& file;
  [[noreturn]] void fail(const YAML::Node& n, const std::string& key, const std::string& what) const {
    const int line = n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
    throw InputError(file + ":" + std::to_string(line) + ": " + key + ": " + what);
  }
  std::string text(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar() || n.Scalar().empty()) fail(n, key, "expected a non-empty string");
    return n.Scalar();
  }
  double number(const YAML::Node& n, const std::string& key, double lo, double hi, bool lo_open) const {
    double v = NAN;
    if (n.IsScalar()) {
      try {
        size_t used = 0;
        v = std::stod(n.Scalar(), &used);
        if (used != n.Scalar().size()) v = NAN;
      } catch (const std::exception&) {
        v = NAN;
      }
    }
    if (!std::isfinite(v) || v > hi || (lo_open ? v <= lo : v < lo))
      fail(n, key, "got " + (n.IsScalar() ? "'" + printable(n.Scalar()) + "'" : std::string("a non-scalar")) +
                       "; expected a number in " + (lo_open ? "(" : "[") + std::to_string(lo).substr(0, 8) + ", " +
                       std::to_string(hi).substr(0, 12) + "]");
    return v;
  }
  std::vector<std::string> list(const YAML::Node& n, const std::string& key) const {
    if (!n.IsSequence() || n.size() == 0) fail(n, key, "expected a non-empty list of strings");
    std::vector<std::string> out;
    for (const auto& e : n) out.push_back(text(e, key));
    return out;
  }
  // name -> a count of records (>= 0); `names`, when given, are the valid keys.
  std::map<std::string, int64_t> count_table(const YAML::Node& n, const std::string& key,
                                             const std::vector<std::string>* names) const {
    if (!n.IsMap()) fail(n, key, "expected a map of name -> number of records");
    std::map<std::string, int64_t> out;
    for (const auto& kv : n) {
      const std::string k = text(kv.first, key);
      if (names && std::find(names->begin(), names->end(), k) == names->end())
        fail(kv.first, key, "key '" + printable(k) + "' is not an architecture of the chip cards");
      const double v = number(kv.second, key + "." + k, 0, 1e9, false);
      if (v != std::floor(v)) fail(kv.second, key + "." + k, "expected a whole number of records");
      if (!out.emplace(k, static_cast<int64_t>(v)).second)
        fail(kv.first, key, "duplicate key '" + k + "'");
    }
    return out;
  }
  // "<format family>/<architecture>" -> fraction in (0, 1]; "*" stands for any.
  std::map<std::string, double> fraction_table(const YAML::Node& n, const std::string& key) const {
    if (!n.IsMap() || n.size() == 0) fail(n, key, "expected a map of '<format family>/<architecture>' -> fraction");
    std::map<std::string, double> out;
    const auto& fams = format_family_names();
    const auto& archs = architectures();
    for (const auto& kv : n) {
      const std::string k = text(kv.first, key);
      const auto slash = k.find('/');
      const std::string fam = k.substr(0, slash), arch = slash == std::string::npos ? "" : k.substr(slash + 1);
      const bool fam_ok = fam == "*" || std::find(fams.begin(), fams.end(), fam) != fams.end();
      const bool arch_ok = arch == "*" || std::find(archs.begin(), archs.end(), arch) != archs.end() ||
                           std::find(vendor_names().begin(), vendor_names().end(), arch) != vendor_names().end();
      if (slash == std::string::npos || !fam_ok || !arch_ok) {
        std::string f;
        for (const auto& x : fams) f += (f.empty() ? "" : ", ") + x;
        fail(kv.first, key, "key '" + printable(k) + "' is not '<format family>/<architecture>'; families: " + f +
                                " or *; architectures as on chip cards, or *");
      }
      if (!out.emplace(k, number(kv.second, key + "." + k, 0, 1, true)).second) fail(kv.first, key, "duplicate key '" + k + "'");
    }
    return out;
  }
};

}  // namespace

RuntimeProfile parse_runtime_card(std::string_view yaml_text, const std::string& file) {
  const YAML::Node root = parse_yaml(yaml_text, file);
  Reader r{file};
  if (!root.IsMap()) throw InputError(file + ":1: expected a map of runtime profile keys (id, name, ...)");
  RuntimeProfile p;
  p.file = file;
  using Setter = std::function<void(const YAML::Node&, const std::string&)>;
  auto flag = [&](const YAML::Node& n, const std::string& k) {
    const std::string v = r.text(n, k);
    if (v != "true" && v != "false") r.fail(n, k, "got '" + printable(v) + "'; expected true or false");
    return v == "true";
  };
  // A release alone: dotted numbers ("0.8.0", optionally led by "v") or a llama.cpp build tag ("b3216").
  auto release = [&](const YAML::Node& n, const std::string& k) {
    const std::string v = r.text(n, k);
    const Release parsed = parse_release(v);
    if (parsed.parts.empty() || parsed.length != v.size())
      r.fail(n, k, "got '" + printable(v) + "'; expected a release number such as 0.8.0 or a llama.cpp build tag such as b3216");
    return v;
  };
  const std::map<std::string, Setter> keys = {
      {"id", [&](auto& n, auto& k) { p.id = r.text(n, k); }},
      {"name", [&](auto& n, auto& k) { p.name = r.text(n, k); }},
      {"description", [&](auto& n, auto& k) { p.description = r.text(n, k); }},
      {"engines", [&](auto& n, auto& k) { p.engines = r.list(n, k); }},
      {"sources", [&](auto& n, auto& k) { p.sources = r.list(n, k); }},
      {"release_from", [&](auto& n, auto& k) { p.release_from = release(n, k); }},
      {"release_before", [&](auto& n, auto& k) { p.release_before = release(n, k); }},
      {"release_date", [&](auto& n, auto& k) {
         p.release_date = r.text(n, k);
         const std::string& d = p.release_date;
         const bool ok = d.size() == 10 && d[4] == '-' && d[7] == '-' &&
                         std::all_of(d.begin(), d.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '-'; });
         if (!ok) r.fail(n, k, "got '" + printable(d) + "'; expected a date YYYY-MM-DD");
       }},
      {"notes", [&](auto& n, auto& k) { p.notes = r.list(n, k); }},
      {"decode_bandwidth_fraction", [&](auto& n, auto& k) { p.decode_bandwidth_fraction = r.fraction_table(n, k); }},
      {"gemm_fraction", [&](auto& n, auto& k) { p.gemm_fraction = r.fraction_table(n, k); }},
      {"small_batch_tokens", [&](auto& n, auto& k) { p.small_batch_tokens = static_cast<int64_t>(r.number(n, k, 0, 4096, false)); }},
      {"small_batch_lane_multiple", [&](auto& n, auto& k) { p.small_batch_lane_multiple = r.number(n, k, 0, 64, false); }},
      {"per_layer_s", [&](auto& n, auto& k) { p.per_layer_s = r.number(n, k, 0, 0.1, false); }},
      {"per_step_s", [&](auto& n, auto& k) { p.per_step_s = r.number(n, k, 0, 10, false); }},
      {"per_request_s", [&](auto& n, auto& k) { p.served.per_request_s = r.number(n, k, 0, 10, false); }},
      {"per_stream_s", [&](auto& n, auto& k) { p.served.per_stream_s = r.number(n, k, 0, 1, false); }},
      {"per_stream_limit", [&](auto& n, auto& k) { p.served.stream_limit = r.number(n, k, 0, 1e7, false); }},
      {"unit_stream_bytes_per_cycle", [&](auto& n, auto& k) { p.unit_stream_bytes_per_cycle = r.number(n, k, 0, 1e4, false); }},
      {"attention_fraction", [&](auto& n, auto& k) { p.attention_fraction = r.number(n, k, 0, 1, true); }},
      {"prefill_attention_fraction", [&](auto& n, auto& k) { p.prefill_attention_fraction = r.number(n, k, 0, 1, true); }},
      {"multi_device", [&](auto& n, auto& k) {
         p.multi_device = r.text(n, k);
         if (p.multi_device != "tensor" && p.multi_device != "pipeline")
           r.fail(n, k, "got '" + printable(p.multi_device) + "'; expected tensor or pipeline");
       }},
      {"by_architecture", [&](auto& n, auto& k) {
         if (!n.IsMap()) r.fail(n, k, "expected a map of '<term>/<architecture>' -> value");
         const auto& terms = RuntimeProfile::architecture_terms();
         const auto& archs = architectures();
         for (const auto& kv : n) {
           const std::string key = r.text(kv.first, k);
           const auto slash = key.find('/');
           const std::string term = key.substr(0, slash), arch = slash == std::string::npos ? "" : key.substr(slash + 1);
           if (std::find(terms.begin(), terms.end(), term) == terms.end() || std::find(archs.begin(), archs.end(), arch) == archs.end())
             r.fail(kv.first, k, "key '" + printable(key) + "' is not '<term>/<architecture>' with term per_layer_s, "
                                 "attention_fraction or prefill_attention_fraction and an architecture of the chip cards");
           const double v = term == "per_layer_s" ? r.number(kv.second, k + "." + key, 0, 0.1, false)
                                                  : r.number(kv.second, k + "." + key, 0, 1, true);
           if (!p.by_architecture.emplace(key, v).second) r.fail(kv.first, k, "duplicate key '" + key + "'");
         }
       }},
      {"quantized_kv", [&](auto& n, auto& k) {
         p.quantized_kv = r.text(n, k);
         if (p.quantized_kv != "fp8" && p.quantized_kv != "fp16" && p.quantized_kv != "bf16")
           r.fail(n, k, "got '" + printable(p.quantized_kv) + "'; expected fp8, fp16 or bf16");
       }},
      {"collective_latency_s", [&](auto& n, auto& k) { p.collective_latency_s = r.number(n, k, 0, 1, false); }},
      {"scaleout_collective_latency_s", [&](auto& n, auto& k) { p.scaleout_collective_latency_s = r.number(n, k, 0, 1, false); }},
      {"bus_bandwidth_fraction", [&](auto& n, auto& k) { p.bus_bandwidth_fraction = r.number(n, k, 0, 1, true); }},
      {"prefill_chunk", [&](auto& n, auto& k) { p.prefill_chunk = static_cast<int64_t>(r.number(n, k, 0, 1e7, false)); }},
      {"max_batch", [&](auto& n, auto& k) { p.max_batch = static_cast<int64_t>(r.number(n, k, 1, 1e6, false)); }},
      {"serving_defaults", [&](auto& n, auto& k) {
         if (!n.IsSequence()) r.fail(n, k, "expected a list of {min_memory_gib, except_name, max_seqs, token_budget}");
         for (const auto& e : n) {
           if (!e.IsMap() || !e["max_seqs"] || !e["token_budget"])
             r.fail(e, k, "expected max_seqs and token_budget, optionally min_memory_gib and except_name");
           RuntimeProfile::ServingDefault d;
           for (const auto& kv : e) {
             const std::string key = r.text(kv.first, k);
             if (key == "min_memory_gib") d.min_memory_bytes = r.number(kv.second, k + ".min_memory_gib", 0, 1e6, false) * 1073741824.0;
             else if (key == "except_name") d.except_name = r.text(kv.second, k + ".except_name");
             else if (key == "max_seqs") d.max_seqs = static_cast<int64_t>(r.number(kv.second, k + ".max_seqs", 1, 1e6, false));
             else if (key == "token_budget") d.token_budget = static_cast<int64_t>(r.number(kv.second, k + ".token_budget", 1, 1e7, false));
             else r.fail(kv.first, k, "unknown key '" + printable(key) + "'; expected min_memory_gib, except_name, max_seqs or token_budget");
           }
           p.serving_defaults.push_back(d);
         }
       }},
      {"records_by_chip", [&](auto& n, auto& k) { p.records_by_chip = r.count_table(n, k, nullptr); }},
      {"records_by_architecture", [&](auto& n, auto& k) { p.records_by_architecture = r.count_table(n, k, &architectures()); }},
      {"memory_fraction", [&](auto& n, auto& k) { p.memory_fraction = r.number(n, k, 0, 1, true); }},
      {"moe_expert_fraction", [&](auto& n, auto& k) { p.moe_expert_fraction = r.number(n, k, 0, 1, true); }},
      {"use_calibration", [&](auto& n, auto& k) { p.use_calibration = flag(n, k); }},
      {"fp16_accumulate", [&](auto& n, auto& k) { p.fp16_accumulate = flag(n, k); }},
      {"provenance", [&](auto& n, auto& k) {
         if (!n.IsMap()) r.fail(n, k, "expected a map of term -> where its value comes from");
         for (const auto& kv : n) p.provenance[r.text(kv.first, k)] = r.text(kv.second, k);
       }},
      {"bands", [&](auto& n, auto& k) {
         if (!n.IsSequence()) r.fail(n, k, "expected a list of {key, p10, p50, p90, records}");
         for (const auto& e : n) {
           if (!e.IsMap() || !e["key"] || !e["p10"] || !e["p50"] || !e["p90"] || !e["records"] || e.size() != 5)
             r.fail(e, k, "expected exactly the keys key, p10, p50, p90, records");
           ErrorBand b;
           b.key = r.text(e["key"], k + ".key");
           b.p10 = r.number(e["p10"], k + ".p10", -1, 100, true);  // -1 would be a prediction of zero
           b.p50 = r.number(e["p50"], k + ".p50", -1, 100, false);
           b.p90 = r.number(e["p90"], k + ".p90", -1, 100, false);
           b.records = static_cast<int64_t>(r.number(e["records"], k + ".records", 1, 1e9, false));
           if (!(b.p10 <= b.p50 && b.p50 <= b.p90)) r.fail(e, k, "expected p10 <= p50 <= p90");
           p.bands.push_back(b);
         }
       }},
  };
  std::vector<std::string> names;
  for (const auto& [k, v] : keys) names.push_back(k);
  std::set<std::string> seen;
  for (const auto& kv : root) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (!seen.insert(key).second) r.fail(kv.first, printable(key), "duplicate key; expected each key once");
    auto it = keys.find(key);
    if (it == keys.end()) {
      auto near = closest_matches(key, names, 1);
      r.fail(kv.first, printable(key), "unknown key" + (near.empty() ? std::string() : "; did you mean '" + near[0] + "'?"));
    }
    it->second(kv.second, key);
  }
  for (const char* required : {"id", "name", "description", "sources"})
    if (!root[required]) throw InputError(file + ":1: " + required + ": missing; expected it in every runtime profile");
  // A stated per-unit rate is kept through every refit (validate/fit.cpp): a stated 0 would turn the cap off for good.
  if (auto it = p.provenance.find("unit_stream_bytes_per_cycle");
      it != p.provenance.end() && it->second.rfind("stated", 0) == 0 && !(p.unit_stream_bytes_per_cycle > 0))
    throw InputError(file + ":1: unit_stream_bytes_per_cycle: stated as " + std::to_string(p.unit_stream_bytes_per_cycle) +
                     "; expected a positive rate where the provenance states it (or a provenance that lets the fit set it)");
  if ((!p.release_from.empty() || !p.release_before.empty()) && p.release_date.empty())
    throw InputError(file + ":1: release_date: missing; expected the date of the boundary release beside release_from or "
                     "release_before (sources that print no release number are placed by it)");
  return p;
}

std::vector<RuntimeProfile> load_runtimes(const std::vector<std::string>& extra_dirs) {
  std::vector<RuntimeProfile> all = {generic_profile(false)};
  auto add = [&](RuntimeProfile p, bool may_replace) {
    for (auto& e : all)
      if (e.id == p.id) {
        if (!may_replace) throw InputError(p.file + ":1: id: duplicate id '" + p.id + "', also in " + e.file);
        e = std::move(p);
        return;
      }
    all.push_back(std::move(p));
  };
  for (std::size_t i = 0; i < embedded_runtime_cards_count; ++i) {
    const auto& f = embedded_runtime_cards[i];
    add(parse_runtime_card(f.content, "hwdb/runtimes/" + std::string(f.name)), false);
  }
  for (const auto& dir : extra_dirs)
    for (const auto& path : list_files(dir, {".yaml"}, "a folder of runtime profile cards"))
      add(parse_runtime_card(read_text_file(path, "runtime profile"), path), true);
  return all;
}

std::vector<std::string> runtime_ids(const std::vector<RuntimeProfile>& all) {
  std::vector<std::string> ids;
  for (const auto& p : all) ids.push_back(p.id);
  return ids;
}

RuntimeProfile find_runtime(const std::vector<RuntimeProfile>& all, std::string_view id) {
  for (const auto& p : all)
    if (p.id == id) return p;
  std::string valid;
  for (const auto& v : runtime_ids(all)) valid += (valid.empty() ? "" : ", ") + v;
  throw InputError(unknown_id_message("runtime", id, runtime_ids(all)) + "; the runtimes are: " + valid);
}

std::string runtime_card_yaml(const RuntimeProfile& p, const std::string& header) {
  std::ostringstream y;
  y << std::setprecision(4);
  // A YAML double-quoted scalar: quotes and backslashes escaped, control characters as \xNN (raw ones are not
  // allowed in YAML), so any text the parser accepted reads back.
  auto quote = [](const std::string& s) {
    std::string o = "\"";
    for (char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') o += std::string("\\") + c;
      else if (u < 0x20 || u == 0x7f) {
        char buf[5];
        std::snprintf(buf, sizeof buf, "\\x%02x", u);
        o += buf;
      } else o += c;
    }
    return o + "\"";
  };
  std::istringstream h(header);
  for (std::string line; std::getline(h, line);) y << "# " << line << "\n";
  y << "id: " << quote(p.id) << "\nname: " << quote(p.name) << "\ndescription: " << quote(p.description) << "\n";
  auto list = [&](const char* k, const std::vector<std::string>& v) {
    if (v.empty()) return;
    y << k << ":\n";
    for (const auto& s : v) y << "  - " << quote(s) << "\n";
  };
  list("engines", p.engines);
  for (const auto& [k, v] : {std::pair<const char*, const std::string*>{"release_from", &p.release_from},
                             {"release_before", &p.release_before}, {"release_date", &p.release_date}})
    if (!v->empty()) y << k << ": " << quote(*v) << "\n";
  list("sources", p.sources);
  list("notes", p.notes);
  auto table = [&](const char* k, const std::map<std::string, double>& t) {
    if (t.empty()) return;
    y << k << ":\n";
    for (const auto& [key, v] : t) y << "  " << quote(key) << ": " << v << "\n";
  };
  table("decode_bandwidth_fraction", p.decode_bandwidth_fraction);
  table("gemm_fraction", p.gemm_fraction);
  table("by_architecture", p.by_architecture);
  y << "small_batch_tokens: " << p.small_batch_tokens << "\nsmall_batch_lane_multiple: " << p.small_batch_lane_multiple
    << "\nper_layer_s: " << p.per_layer_s << "\nper_step_s: " << p.per_step_s

    << "\nunit_stream_bytes_per_cycle: " << p.unit_stream_bytes_per_cycle << "\nattention_fraction: " << p.attention_fraction
    << "\nprefill_attention_fraction: " << p.prefill_attention_fraction << "\nmulti_device: " << quote(p.multi_device)
    << (p.quantized_kv.empty() ? std::string() : "\nquantized_kv: " + quote(p.quantized_kv))
    << (p.fp16_accumulate ? "\nfp16_accumulate: true" : "")
    << "\ncollective_latency_s: " << p.collective_latency_s;
  if (p.scaleout_collective_latency_s) y << "\nscaleout_collective_latency_s: " << *p.scaleout_collective_latency_s;
  y << "\nbus_bandwidth_fraction: " << p.bus_bandwidth_fraction
    << "\nprefill_chunk: " << p.prefill_chunk << "\nmax_batch: " << p.max_batch;
  if (p.served.any())
    y << "\nper_request_s: " << p.served.per_request_s << "\nper_stream_s: " << p.served.per_stream_s
      << "\nper_stream_limit: " << p.served.stream_limit;
  if (!p.serving_defaults.empty()) {
    y << "\nserving_defaults:";
    for (const auto& d : p.serving_defaults) {
      y << "\n  - {";
      if (d.min_memory_bytes > 0) y << "min_memory_gib: " << d.min_memory_bytes / 1073741824.0 << ", ";
      if (!d.except_name.empty()) y << "except_name: " << quote(d.except_name) << ", ";
      y << "max_seqs: " << d.max_seqs << ", token_budget: " << d.token_budget << "}";
    }
  }
  y << "\nmemory_fraction: " << p.memory_fraction
    << "\nmoe_expert_fraction: " << p.moe_expert_fraction << "\nuse_calibration: " << (p.use_calibration ? "true" : "false") << "\n";
  for (const auto& [k, t] : {std::pair<const char*, const std::map<std::string, int64_t>*>{"records_by_chip", &p.records_by_chip},
                             {"records_by_architecture", &p.records_by_architecture}}) {
    if (t->empty()) continue;
    y << k << ":\n";
    for (const auto& [name, n] : *t) y << "  " << quote(name) << ": " << n << "\n";
  }
  if (!p.provenance.empty()) {
    y << "provenance:\n";
    for (const auto& [k, v] : p.provenance) y << "  " << quote(k) << ": " << quote(v) << "\n";
  }
  if (!p.bands.empty()) {
    y << "bands:\n";
    for (const auto& b : p.bands)
      y << "  - {key: " << quote(b.key) << ", p10: " << b.p10 << ", p50: " << b.p50 << ", p90: " << b.p90
        << ", records: " << b.records << "}\n";
  }
  return y.str();
}

}  // namespace rooftop::hwdb
