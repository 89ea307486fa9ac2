// rooftop hw list | hw show ID: the hardware database.
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "base/json.h"
#include "reports/fit_report.h"
#include "reports/table.h"
#include "reports/units.h"

namespace rooftop::cli {

namespace {
nlohmann::json chip_json(const ChipSpec& c) {
  nlohmann::json j{{"id", c.id}, {"name", c.name}, {"vendor", c.vendor}, {"kind", c.kind}, {"memory_bytes", c.memory_bytes},
                   {"memory_bandwidth_bytes_per_s", c.memory_bandwidth_bytes_per_s}, {"peak_flops", c.peak_flops}};
  auto opt = [&](const char* k, const auto& v) { j[k] = v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  opt("tdp_watts", c.tdp_watts);
  opt("usd_per_hour", c.usd_per_hour);
  j["usd_per_hour_date"] = c.usd_per_hour_date;
  j["usd_per_hour_source"] = c.usd_per_hour_source;
  opt("scaleup_bandwidth_bytes_per_s", c.scaleup_bandwidth_bytes_per_s);
  opt("scaleup_domain_size", c.scaleup_domain_size);
  opt("scaleout_bandwidth_bytes_per_s", c.scaleout_bandwidth_bytes_per_s);
  opt("l2_bytes", c.l2_bytes);
  opt("sram_bytes", c.sram_bytes);
  opt("compute_units", c.compute_units);
  opt("boost_clock_hz", c.boost_clock_hz);
  ROOFTOP_JSON_FIELDS(j, c, sources, notes, provenance);
  j["measured"] = c.measured.entries();
  j["file"] = c.file;
  return j;
}
}  // namespace

void register_hw(CLI::App& app, Context& ctx) {
  auto out = std::make_shared<OutputOptions>();
  auto id = std::make_shared<std::string>();
  auto* hw = app.add_subcommand("hw", "the hardware database: rooftop hw list, rooftop hw show h100-sxm");
  hw->require_subcommand(1);
  auto* list = hw->add_subcommand("list", "every chip with capacity, bandwidth and peak rates");
  add_output_options(*list, *out);
  auto* show = hw->add_subcommand("show", "one chip's card with sources (cpu or local = this machine)\nExample: rooftop hw show h200");
  show->add_option("id", *id, "chip id")->required();
  add_output_options(*show, *out);
  list->callback([&ctx, out] {
    ctx.action = [&ctx, out] {
      const auto& db = hw_database(ctx);
      if (out->format == "json") {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& c : db.chips) j.push_back(chip_json(c));
        emit(ctx, *out, j.dump(2) + "\n");
        return kExitOk;
      }
      reports::Table t;
      t.title = "chips (rooftop hw show ID for sources; cpu = this machine)";
      t.headers = {"id", "name", "memory", "bandwidth", "bf16 dense", "fp8 dense", "TDP", "$/hour"};
      auto rate = [](const ChipSpec& c, const char* f) { auto p = c.peak(f); return p ? reports::flops_rate(*p) : std::string("-"); };
      for (const auto& c : db.chips)
        t.rows.push_back({c.id, c.name, reports::bytes(c.memory_bytes), reports::rate_bytes(c.memory_bandwidth_bytes_per_s), rate(c, "bf16"),
                          rate(c, "fp8"), c.tdp_watts ? reports::sig(*c.tdp_watts) + " W" : "-", c.usd_per_hour ? reports::usd(*c.usd_per_hour) : "-"});
      emit(ctx, *out, reports::render({t}, out->format));
      return kExitOk;
    };
  });
  show->callback([&ctx, out, id] {
    ctx.action = [&ctx, out, id] {
      ChipSpec c = resolve_chip(ctx, *id);
      if (out->format == "json") {
        emit(ctx, *out, chip_json(c).dump(2) + "\n");
        return kExitOk;
      }
      reports::Table t;
      t.title = c.id + ": " + c.name;
      t.headers = {"figure", "value", "source"};
      t.right_align = {false, true, false};
      t.rows.push_back({"memory", reports::bytes(c.memory_bytes), reports::provenance_of(c, "memory_bytes")});
      t.rows.push_back({"bandwidth", reports::rate_bytes(c.memory_bandwidth_bytes_per_s), reports::provenance_of(c, "memory_bandwidth_bytes_per_s")});
      for (const auto& [f, v] : c.peak_flops)
        t.rows.push_back({"peak " + f + " (dense)", reports::flops_rate(v), reports::provenance_of(c, "peak_flops." + f)});
      if (c.tdp_watts) t.rows.push_back({"TDP", reports::sig(*c.tdp_watts) + " W", reports::provenance_of(c, "tdp_watts")});
      if (c.usd_per_hour) t.rows.push_back({"price", reports::usd(*c.usd_per_hour) + "/hour", c.usd_per_hour_date + " " + c.usd_per_hour_source});
      if (c.scaleup_bandwidth_bytes_per_s)
        t.rows.push_back({"scale-up link", reports::rate_bytes(*c.scaleup_bandwidth_bytes_per_s),
                          c.scaleup_domain_size ? std::to_string(*c.scaleup_domain_size) + " devices per domain" : ""});
      if (c.l2_bytes) t.rows.push_back({"L2", reports::bytes(*c.l2_bytes), ""});
      if (c.compute_units) t.rows.push_back({"compute units", std::to_string(*c.compute_units), ""});
      if (c.boost_clock_hz) t.rows.push_back({"boost clock", reports::sig(*c.boost_clock_hz / 1e9) + " GHz", ""});
      for (const auto& [k, v] : c.measured.entries()) t.rows.push_back({k, reports::sig(v), reports::provenance_of(c, k)});
      for (const auto& s : c.sources) t.footnotes.push_back("source: " + s);
      for (const auto& n : c.notes) t.footnotes.push_back("note: " + n);
      emit(ctx, *out, reports::render({t}, out->format));
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
