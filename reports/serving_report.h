// rooftop simulate as one self-contained HTML page: latency CDFs and KV occupancy over time (a sweep's heaviest
// load), and for a rate sweep the served rate and p99 latencies against the offered rate.
#pragma once
#include <string>
#include <vector>

#include "analyzer/serving.h"
#include "reports/table.h"

namespace rooftop::reports {

// `rates` is empty for one run, else one rate per run (the sweep).
std::string simulate_html(const std::string& title, const std::vector<SimulationResult>& runs, const std::vector<double>& rates,
                          const Table& table);

}  // namespace rooftop::reports
