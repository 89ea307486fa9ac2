// Fitting runtime profiles: see fit.h.
#include "validate/fit.h"

#include "base/stats.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace rooftop::validate {

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return quantile_sorted(v, q);
}

namespace {

struct Term {
  std::string name;
  double lo, hi;
  std::function<double&(RuntimeProfile&)> ref;
  int level = 0;       // 0: scalars and "*/*" cells; 1: "<family>/*", "*/<vendor>"; 2: "*/<architecture>";
                       // 3: "<family>/<architecture>" and per-architecture terms
  bool cell = false;   // a table cell (created at its stage), not a scalar
  std::function<double(RuntimeProfile&)> parent;  // the value it refines (shrunk towards it); empty at level 0
};

// Shrinkage of a refined cell towards its parent: lambda x log(cell / parent)^2, in the loss's units (a record of
// a 100-record source weighs 0.1), so a cell moves away from its parent only when its records ask. lambda was
// chosen among 0.3, 0.05, 0.01 and 0.001 by the leave-one-source-out error (llama.cpp decode 14%, 13%, 11%,
// 11%; TensorRT-LLM batched 18%, 23%, 24%, 25%): 0.05 is the compromise (docs/runtime-profiles.md).
constexpr double kShrink = 0.05;
// The top cells and the fixed cost per layer are shrunk towards the stated defaults (80% of bandwidth, 70% of peak,
// 15 µs) with this weight: only where the records cannot tell a low bandwidth from a high fixed cost (a small model's
// decode) does the stated physics decide. Stronger priors (0.5, 2) lowered llama.cpp's LOSO decode error (48% ->
// 41% -> 32%) but pulled a consistent 180-record toy dataset 7-20% off its own terms; 0.01 does not.
constexpr double kPrior = 0.01;
// Decode attention streams the KV cache as the mat-vecs stream the weights, so its fraction (relative to the weights')
// is shrunk towards 1 with this weight. Only long-context decode records measure it; without them it stood in for
// other misses (held out of the llama.cpp fit, PR 26570's M2 Ultra tg32 at depths up to 32k fell to 0.28 on
// apple-m2 and -34% median error). Leave-one-source-out decode error (median / p90): all runtimes 11.1% / 37.4% without
// it, 11.0% / 36.2% at 0.1, 11.1% / 36.0% at 0.3; llama.cpp alone 13.7% / 59.9%, 13.7% / 57.7% at 0.01, 13.2% / 57.7%
// at 0.1 (docs/runtime-profiles.md, 2026-12-07 stop 51).
constexpr double kAttentionPrior = 0.1;

// Predictions of the cases under a profile, rates resolved once per (chip, link).
std::vector<double> predict_all(const RuntimeProfile& p, const std::vector<const RecordCase*>& cases) {
  std::map<std::tuple<const ChipSpec*, double, bool>, RuntimeRates> rates;
  std::vector<double> out;
  out.reserve(cases.size());
  for (const RecordCase* c : cases) {
    auto key = std::make_tuple(c->chip, c->link_bytes_per_s, c->scaleup_link);
    auto it = rates.find(key);
    if (it == rates.end()) it = rates.emplace(key, resolve_rates(p, *c->chip, c->link_bytes_per_s, c->scaleup_link)).first;
    out.push_back(predict_case(*c, it->second));
  }
  return out;
}

double loss(const RuntimeProfile& p, const std::vector<const RecordCase*>& cases, const std::vector<double>& values,
            const std::vector<double>& weights, const std::vector<Term>& cells) {
  const auto pred = predict_all(p, cases);
  double l = 0;
  RuntimeProfile q = p;  // the refs may create cells; the caller's profile already has every cell of this stage
  for (const auto& t : cells) {
    const double w = t.name == "attention_fraction" ? kAttentionPrior : t.level == 0 ? kPrior : kShrink;
    l += w * std::pow(std::log(t.ref(q) / t.parent(q)), 2);
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    double e = std::log(pred[i] / values[i]);
    if (!std::isfinite(e)) e = 10;  // a term at its bound making a prediction infinite: heavily penalized
    e = std::fabs(e);
    constexpr double kDelta = 0.25;  // Huber: quadratic within 25%, linear beyond (outliers pull less)
    l += weights[i] * (e <= kDelta ? 0.5 * e * e : kDelta * (e - 0.5 * kDelta));
  }
  return l;
}

// The card states `term` with a source of its own: its provenance begins "stated" (not the fit's "fitted ...").
bool stated(const RuntimeProfile& p, const std::string& term) {
  const auto it = p.provenance.find(term);
  return it != p.provenance.end() && it->second.rfind("stated", 0) == 0;
}

std::vector<Term> terms_for(const RuntimeProfile& start, const std::vector<const RecordCase*>& cases, size_t sources) {
  std::vector<Term> terms;
  // Fraction tables (see RuntimeProfile::lookup): "*/*"; each family's value ("<family>/*") and each vendor's chip
  // adjustment ("*/<vendor>"); each architecture's adjustment ("*/<architecture>"); then a cell of its own for a
  // (family, architecture) whose records depart from the product. Keys with >= 3 records (2 for an architecture's
  // adjustment); each is shrunk towards the value its records would get without it.
  auto table_terms = [&](const char* table, std::map<std::string, double> RuntimeProfile::*member, bool decode_side) {
    std::map<std::string, int> counts;
    for (const RecordCase* c : cases) {
      const bool decode = c->metric_class == "decode" || c->metric_class == "batched" || c->metric_class == "end_to_end";
      const bool gemm = c->metric_class != "decode";
      if (decode_side ? !decode : !gemm) continue;
      counts["*/*"]++;
      counts[c->family + "/*"]++;
      if (!c->arch.empty()) {
        if (!vendor_of(c->arch).empty()) counts["*/" + vendor_of(c->arch)]++;
        counts["*/" + c->arch]++;
        counts[c->family + "/" + c->arch]++;
      }
    }
    for (const auto& [key, n] : counts) {
      const std::string fam = key.substr(0, key.find('/')), arch = key.substr(key.find('/') + 1);
      const auto& vendors = vendor_names();
      const bool vendor = std::find(vendors.begin(), vendors.end(), arch) != vendors.end();
      // Levels: */* (0); family/* and */vendor (1); */architecture (2); family/architecture (3).
      const int level = key == "*/*" ? 0 : arch == "*" || (fam == "*" && vendor) ? 1 : fam == "*" ? 2 : 3;
      // An architecture's adjustment is one number per chip generation, shrunk towards its vendor's: 2 records are
      // enough (a generation measured once, e.g. RDNA3's tg and pp pair, is otherwise priced by another's chips).
      if (n < (level == 2 ? 2 : 3)) continue;
      // The value the key's records get without it: where a new key starts and what it is shrunk towards. The top
      // cell's is the stated default (generic's 80% / 70%): where the records cannot tell a low bandwidth from a
      // high fixed cost (small models), the stated physics decides.
      std::function<double(RuntimeProfile&)> parent;
      if (level == 0) parent = [prior = decode_side ? 0.8 : 0.7](RuntimeProfile&) { return prior; };
      else
        parent = [member, key = key, fam, arch](RuntimeProfile& p) {
          auto t = p.*member;
          t.erase(key);
          return RuntimeProfile::lookup(t, fam, arch == "*" ? "" : arch, 0.7);
        };
      terms.push_back({std::string(table) + "." + key, 0.02, 1.0,
                       [member, key = key, parent](RuntimeProfile& p) -> double& {
                         auto& t = p.*member;
                         if (!t.count(key)) t[key] = parent(p);
                         return t[key];
                       },
                       level, true, parent});
    }
  };
  table_terms("decode_bandwidth_fraction", &RuntimeProfile::decode_bandwidth_fraction, true);
  table_terms("gemm_fraction", &RuntimeProfile::gemm_fraction, false);
  // A runtime-wide scalar: level 0, no parent (bounded only).
  auto scalar = [&terms](std::string name, double lo, double hi, std::function<double&(RuntimeProfile&)> ref) {
    terms.push_back(Term{std::move(name), lo, hi, std::move(ref), 0, false, {}});
  };
  terms.push_back({"per_layer_s", 1e-7, 5e-4, [](RuntimeProfile& p) -> double& { return p.per_layer_s; }, 0, false,
                   [](RuntimeProfile&) { return 15e-6; }});  // shrunk towards the stated 15 µs (launch gaps under CUDA graphs)
  // A per-architecture value of a scalar term ("<name>/<arch>" in by_architecture), shrunk towards the scalar.
  auto arch_term = [&terms](const std::string& name, const std::string& arch, double lo, double hi, double RuntimeProfile::*member) {
    const std::string key = name + "/" + arch;
    terms.push_back({"by_architecture." + key, lo, hi,
                     [key, member](RuntimeProfile& p) -> double& {
                       if (!p.by_architecture.count(key)) p.by_architecture[key] = p.*member;
                       return p.by_architecture[key];
                     },
                     3, true, [member](RuntimeProfile& p) { return p.*member; }});
  };
  // Per-architecture values of the fixed cost and the attention fractions (>= 3 records on the architecture),
  // shrunk towards the runtime's own value.
  {
    std::map<std::string, int> per_arch;
    for (const RecordCase* c : cases)
      if (!c->arch.empty()) per_arch[c->arch]++;
    struct Scalar { const char* name; double lo, hi; double RuntimeProfile::*member; };
    for (const Scalar& s : {Scalar{"per_layer_s", 1e-7, 5e-4, &RuntimeProfile::per_layer_s},
                            Scalar{"attention_fraction", 0.05, 1.0, &RuntimeProfile::attention_fraction},
                            Scalar{"prefill_attention_fraction", 0.01, 1.0, &RuntimeProfile::prefill_attention_fraction}})
      for (const auto& [arch, n] : per_arch)
        if (n >= 3) arch_term(s.name, arch, s.lo, s.hi, s.member);
  }
  // The per-unit streaming rate, where the records' chips state their compute units and clock: 0.1 to 1,000 bytes
  // per unit and cycle.
  // It describes chips against each other, so it needs two sources: one source's records (SGLang's 12) pushed it to
  // its 1 GB/s bound, where it stood in for that source's other terms.
  // A card that states the rate (its provenance begins "stated") keeps it: the stated value stands where the
  // records cannot tell (llama.cpp's builds from b3216 have no HBM NVIDIA chip: fitted, the rate ran to its bound).
  const bool units = std::any_of(cases.begin(), cases.end(), [](const RecordCase* c) { return c->chip->unit_cycles_per_s() > 0; });
  if (units && sources >= 2 && !stated(start, "unit_stream_bytes_per_cycle"))
    scalar("unit_stream_bytes_per_cycle", 0.1, 1000, [](RuntimeProfile& p) -> double& {
      // starts where it binds little (100 units at 1.5 GHz: 15 TB/s)
      if (p.unit_stream_bytes_per_cycle == 0) p.unit_stream_bytes_per_cycle = 100;
      return p.unit_stream_bytes_per_cycle;
    });
  scalar("per_step_s", 1e-6, 0.05, [](RuntimeProfile& p) -> double& { return p.per_step_s; });
  // A served request's delay (ServedDelay): fitted where the card states one and records measured by a client of
  // the server exist (it acts on nothing else). TensorRT-LLM's trtllm-bench runs in process.
  const bool clients = std::any_of(cases.begin(), cases.end(), [](const RecordCase* c) { return c->client; });
  if (start.served.any() && clients) {
    scalar("per_request_s", 1e-5, 0.2, [](RuntimeProfile& p) -> double& { return p.served.per_request_s; });
    scalar("per_stream_s", 1e-6, 0.05, [](RuntimeProfile& p) -> double& { return p.served.per_stream_s; });
  }
  // Decode attention's fraction: shrunk towards 1 (kAttentionPrior), the KV cache streaming as the weights do.
  terms.push_back({"attention_fraction", 0.05, 1.0, [](RuntimeProfile& p) -> double& { return p.attention_fraction; }, 0,
                   false, [](RuntimeProfile&) { return 1.0; }});
  scalar("prefill_attention_fraction", 0.01, 1.0, [](RuntimeProfile& p) -> double& { return p.prefill_attention_fraction; });
  if (start.small_batch_tokens > 0) {
    scalar("small_batch_lane_multiple", 0.01, 8.0, [](RuntimeProfile& p) -> double& { return p.small_batch_lane_multiple; });
    // Per architecture where >= 3 records run passes of the small-batch size (batched decode, a stated microbatch):
    // the vector units' integer dot products relate to the lane rate differently from chip family to family,
    // shrunk towards the scalar.
    std::map<std::string, int> small;
    for (const RecordCase* c : cases) {
      bool has = false;
      for (const auto* passes : {&c->window, &c->prefill_one, &c->prefill_batch})
        for (const auto& p : *passes) has = has || (p.tokens > 1 && p.tokens <= static_cast<double>(start.small_batch_tokens));
      if (has && !c->arch.empty()) small[c->arch]++;
    }
    for (const auto& [arch, n] : small)
      if (n >= 3) arch_term("small_batch_lane_multiple", arch, 0.01, 8.0, &RuntimeProfile::small_batch_lane_multiple);
  }
  // Collective terms where records cross a link: the step latency and bus fraction; the scale-out link's own step
  // latency (PCIe, NICs) only where batch-1 decode records cross it, the records whose time a step latency shows
  // (fitted on batched throughput alone it ran to a bound: TensorRT-LLM's L40S rows to 1 µs, SGLang's two-node rows
  // to 1 ms). It starts at the scale-up fabric's value.
  bool collectives = false, decode_over_scaleout = false;
  for (const RecordCase* c : cases)
    for (const auto& p : c->window)
      if (p.collectives > 0) {
        collectives = true;
        decode_over_scaleout = decode_over_scaleout || (!c->scaleup_link && c->metric_class == "decode");
      }
  if (collectives) {
    scalar("collective_latency_s", 1e-6, 1e-3, [](RuntimeProfile& p) -> double& { return p.collective_latency_s; });
    scalar("bus_bandwidth_fraction", 0.05, 1.0, [](RuntimeProfile& p) -> double& { return p.bus_bandwidth_fraction; });
  }
  if (decode_over_scaleout)
    scalar("scaleout_collective_latency_s", 1e-6, 1e-3, [](RuntimeProfile& p) -> double& {
      if (!p.scaleout_collective_latency_s) p.scaleout_collective_latency_s = p.collective_latency_s;
      return *p.scaleout_collective_latency_s;
    });
  return terms;
}

}  // namespace

RuntimeProfile unfitted(const RuntimeProfile& p) {
  const RuntimeProfile g = generic_profile(false);
  RuntimeProfile u = p;
  u.decode_bandwidth_fraction = g.decode_bandwidth_fraction;
  u.gemm_fraction = g.gemm_fraction;
  u.by_architecture.clear();
  u.per_layer_s = g.per_layer_s;
  u.per_step_s = g.per_step_s;
  // A served runtime's refit starts from 1 ms per request and 0.1 ms per stream (100 streams: 10 ms).
  u.served = p.served.any() ? ServedDelay{1e-3, 1e-4, 0} : ServedDelay{};
  if (!stated(p, "unit_stream_bytes_per_cycle")) u.unit_stream_bytes_per_cycle = 0;
  u.attention_fraction = g.attention_fraction;
  u.prefill_attention_fraction = g.prefill_attention_fraction;
  u.collective_latency_s = g.collective_latency_s;
  u.scaleout_collective_latency_s.reset();
  u.bus_bandwidth_fraction = g.bus_bandwidth_fraction;
  u.small_batch_lane_multiple = p.small_batch_tokens > 0 ? 0.25 : 0;
  u.bands.clear();
  for (auto it = u.provenance.begin(); it != u.provenance.end();)
    it = it->second.rfind("fitted", 0) == 0 ? u.provenance.erase(it) : std::next(it);
  return u;
}

RuntimeProfile fit_profile(const RuntimeProfile& start, const std::vector<const RecordCase*>& cases,
                           const std::vector<double>& values, const std::vector<int>& source_of,
                           std::vector<std::string>* fitted_terms) {
  RuntimeProfile p = start;
  if (cases.empty()) return p;
  // A served delay grows with the requests in flight only as far as the clients' records measured it.
  if (p.served.any())
    for (const RecordCase* c : cases)
      if (c->client) p.served.stream_limit = std::max(p.served.stream_limit, std::min(c->concurrency, c->batch));
  std::map<int, int> per_source;
  for (int s : source_of) per_source[s]++;
  std::vector<double> weights;
  for (int s : source_of) weights.push_back(1.0 / std::sqrt(static_cast<double>(per_source[s])));
  const std::vector<Term> terms = terms_for(start, cases, std::set<int>(source_of.begin(), source_of.end()).size());
  if (fitted_terms)
    for (const auto& t : terms) fitted_terms->push_back(t.name);
  constexpr double kGolden = 0.6180339887498949;
  // Stages: the scalars and "*/*" cells from every record; then each family's cell; then each (family, vendor)
  // cell; then each (family, architecture) cell and per-architecture term, each shrunk towards its parent. Each
  // stage varies the scalars and its own level's cells.
  std::vector<Term> cells;
  for (int stage = 0; stage <= 3; ++stage) {
    std::vector<const Term*> active;
    for (const auto& t : terms) {
      if (!t.cell || t.level == stage) active.push_back(&t);
      if (t.cell && t.level == stage) {
        double& v = t.ref(p);  // created at its parent's value
        v = std::clamp(v, t.lo, t.hi);
        if (t.parent) cells.push_back(t);
      }
      if (!t.cell) {
        double& v = t.ref(p);
        v = std::clamp(v, t.lo, t.hi);
        if (stage == 0 && t.parent) cells.push_back(t);
      }
    }
    for (int sweep = 0; sweep < 2; ++sweep) {
      for (const Term* t : active) {
        double& v = t->ref(p);
        const double best_before = v, loss_before = loss(p, cases, values, weights, cells);
        // Golden-section search on log(value) over [lo, hi].
        double a = std::log(t->lo), b = std::log(t->hi);
        double x1 = b - kGolden * (b - a), x2 = a + kGolden * (b - a);
        v = std::exp(x1);
        double f1 = loss(p, cases, values, weights, cells);
        v = std::exp(x2);
        double f2 = loss(p, cases, values, weights, cells);
        for (int i = 0; i < 22; ++i) {
          if (f1 < f2) {
            b = x2; x2 = x1; f2 = f1;
            x1 = b - kGolden * (b - a);
            v = std::exp(x1);
            f1 = loss(p, cases, values, weights, cells);
          } else {
            a = x1; x1 = x2; f1 = f2;
            x2 = a + kGolden * (b - a);
            v = std::exp(x2);
            f2 = loss(p, cases, values, weights, cells);
          }
        }
        v = std::exp(f1 < f2 ? x1 : x2);
        if (std::min(f1, f2) > loss_before) v = best_before;  // never worse than where the sweep found it
      }
    }
  }
  return p;
}

FitResult fit_with_loso(const RuntimeProfile& start, const std::vector<const RecordCase*>& cases,
                        const std::vector<double>& values, const std::vector<int>& source_of) {
  FitResult r;
  const RuntimeProfile base = unfitted(start);  // the stated terms only: a refit never starts from an earlier fit
  r.profile = fit_profile(base, cases, values, source_of, &r.fitted_terms);
  // Terms the fit pushed to a bound of their range: the data asked for more than the term can physically give.
  for (const auto& t : terms_for(base, cases, std::set<int>(source_of.begin(), source_of.end()).size())) {
    RuntimeProfile copy = r.profile;
    const double v = t.ref(copy);
    if (v <= t.lo * 1.02 || v >= t.hi / 1.02) r.at_bound.push_back(t.name);
  }
  r.profile.records_by_chip.clear();
  r.profile.records_by_architecture.clear();
  for (const RecordCase* c : cases) {
    r.profile.records_by_chip[c->chip->id]++;
    if (!c->arch.empty()) r.profile.records_by_architecture[c->arch]++;
  }
  const auto fitted = predict_all(r.profile, cases);
  for (size_t i = 0; i < cases.size(); ++i) r.in_sample.push_back({cases[i]->record, source_of[i], values[i], fitted[i]});
  std::set<int> sources(source_of.begin(), source_of.end());
  r.sources = static_cast<int>(sources.size());
  std::vector<std::pair<const RecordCase*, Prediction>> held;
  std::vector<bool> chip_unseen;  // no other source measured the held-out record's chip
  for (int s : sources) {
    std::vector<const RecordCase*> train, test;
    std::vector<double> train_v, test_v;
    std::vector<int> train_s;
    for (size_t i = 0; i < cases.size(); ++i) {
      if (source_of[i] == s) {
        test.push_back(cases[i]);
        test_v.push_back(values[i]);
      } else {
        train.push_back(cases[i]);
        train_v.push_back(values[i]);
        train_s.push_back(source_of[i]);
      }
    }
    if (train.empty()) continue;  // a runtime with one source has no held-out prediction: not cross-validated
    const RuntimeProfile fold = fit_profile(base, train, train_v, train_s);
    const auto pred = predict_all(fold, test);
    std::set<std::string> train_chips;
    for (const RecordCase* c : train) train_chips.insert(c->chip->id);
    for (size_t i = 0; i < test.size(); ++i) {
      Prediction p{test[i]->record, s, test_v[i], pred[i]};
      r.held_out.push_back(p);
      held.emplace_back(test[i], p);
      chip_unseen.push_back(!train_chips.count(test[i]->chip->id));
    }
  }
  // Bands from the held-out errors.
  std::map<std::string, std::vector<double>> groups;
  for (size_t i = 0; i < held.size(); ++i) {
    const auto& [c, p] = held[i];
    // A chip the profile has no record of is predicted as these were: from other chips only.
    if (chip_unseen[i]) groups[c->metric_class + "/" + kUnseenChip].push_back(p.error());
    groups[c->metric_class + "/" + (c->arch.empty() ? "*" : c->arch)].push_back(p.error());
    groups[c->metric_class + "/*"].push_back(p.error());
    groups["*/*"].push_back(p.error());
  }
  r.profile.bands.clear();
  for (const auto& [key, errs] : groups) {
    if (errs.size() < 5) continue;
    r.profile.bands.push_back({key, percentile(errs, 0.1), percentile(errs, 0.5), percentile(errs, 0.9),
                               static_cast<int64_t>(errs.size())});
  }
  return r;
}

}  // namespace rooftop::validate
