// The dataset of published measurements (validate/published/*.yaml, one file per source): records
// exactly as printed in their sources, read by a strict loader. See validate/published/README.md.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rooftop::validate {

struct PublishedSource {
  std::string file;  // the YAML file it was read from
  std::string url, title, where, date;
  std::string engine, engine_version;
  // harness: client: a client of the engine's server measured it (vllm bench serve, genai-perf), so its times
  // carry the server's delay (ServedDelay); in_process (the default): the engine's own benchmark.
  bool client = false;
};

struct PublishedRecord {
  int source = 0;  // index into PublishedDataset::sources
  int line = 0;    // line of the record in its file (1-based)
  std::string hw;
  int64_t hw_count = 1;
  int64_t tp = 0, pp = 0;  // tensor-parallel and pipeline degrees as the source states them; 0: not stated
  std::string interconnect;
  std::optional<double> power_limit_w;
  std::string model, weights, kv;
  std::optional<int64_t> batch;  // batch or concurrency; empty when the source does not state one (MLPerf Offline)
  std::optional<double> request_rate;  // requests per second offered (an online benchmark); empty: as fast as it can
  std::optional<int64_t> prompt_tokens, output_tokens;
  std::optional<int64_t> ubatch;  // tokens per pass as stated (llama-bench -ub): a prompt is processed in passes of this size
  std::string metric;  // one of published_metrics()
  double value = 0;    // as printed (seconds for time metrics)
  std::string value_as_printed, notes;
};

struct PublishedDataset {
  std::vector<PublishedSource> sources;
  std::vector<PublishedRecord> records;
  std::vector<std::string> duplicates;  // "file:line duplicates file:line" for records with equal conditions
};

// tg_tok_s, pp_tok_s, ttft_s, tpot_s, throughput_tok_s, total_tok_s, request_s.
const std::vector<std::string>& published_metrics();

// Parses one source file and appends it to `data`. Anything missing, unknown, mistyped or out of
// range is InputError "file:line: key: what was wrong; expected ..." and the file is refused whole.
void parse_published(std::string_view yaml_text, const std::string& file, PublishedDataset& data);

// The embedded dataset (every file of validate/published/; left out when !embedded), plus each *.yaml of `extra_dirs`.
PublishedDataset load_published(const std::vector<std::string>& extra_dirs = {}, bool embedded = true);

}  // namespace rooftop::validate
