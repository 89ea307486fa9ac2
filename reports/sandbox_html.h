// The interactive sandbox (`rooftop report --interactive`): one self-contained HTML page with controls for
// model, chip, precision, tensor parallelism, context, batch and price, whose numbers and charts move without a
// server. The page carries the analyzer's answers for a precomputed grid (cli/cmd_report.cpp builds it); it
// computes nothing of its own but the price scaling ($/Mtok is linear in the price per device-hour).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace rooftop::reports {

// The grid (see SandboxGrid in cli/cmd_report.cpp for its keys) embedded in a page with its controls and charts.
// URL fragment: #model=ID&hw=ID&precision=FMT&tp=N&context=N&batch=N&price=USD sets the controls on load;
// #sets=[{...},...] (URL-encoded JSON) applies each set through the controls and writes what the page shows to
// <pre id="selftest"> (the browser test reads it).
std::string sandbox_html(const nlohmann::json& grid);

}  // namespace rooftop::reports
