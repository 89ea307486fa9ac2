// Resolution of the shared options: database loading (once per process), model, chip and precision plan.
#include "cli/common.h"
#include "hwdb/runtime_cards.h"

#include <memory>

#include "base/suggest.h"
#include "formats/formats.h"
#include "analyzer/params.h"

namespace rooftop::cli {

void add_model_options(CLI::App& cmd, ModelOptions& o, bool with_hw, bool with_runtime, bool model_required) {
  auto* model = cmd.add_option("-m,--model", o.model, "model id, config.json or .gguf (see rooftop model list)");
  if (model_required) model->required();
  if (with_hw) cmd.add_option("--hw", o.hw, "chip id (see rooftop hw list); cpu or local = this machine")->capture_default_str();
  cmd.add_option("-p,--precision", o.precision,
                 "weight format (fp32, bf16, fp8, int4, q4_k_m, mxfp4 ...); a .gguf model defaults to its own tensors' formats")
      ->capture_default_str()
      ->each([&o](const std::string&) { o.precision_given = true; });
  cmd.add_option("--kv-precision", o.kv_precision, "KV cache format (bf16, fp16, fp8, fp32 ...)")->capture_default_str();
  cmd.add_option("--class-precision", o.class_precision,
                 "format of one class of weights, CLASS=FMT (classes: embeddings, attention, dense_ffn, experts, "
                 "shared_experts, router, lm_head); repeatable");
  if (with_runtime) cmd.add_option("--runtime", o.runtime,
                 "the inference engine's profile: llama.cpp (b3216 and later), llama.cpp-early, vllm (0.8.0 and later), vllm-v0, trt-llm, "
                 "sglang, mlx, rooftop or generic (fitted to "
                 "published measurements; predictions then carry its error band)");
}

std::optional<RuntimeProfile> resolve_runtime(const ModelOptions& o) {
  if (o.runtime.empty()) return std::nullopt;
  RuntimeProfile p = hwdb::find_runtime(hwdb::load_runtimes(), o.runtime);  // unknown ids are refused here
  if (p.id == "generic") return std::nullopt;  // the defaults (CPU or GPU ones, by chip), as without --runtime
  return p;
}

namespace {
// A database loaded once per process and reloaded only when its folders change (tests call several commands
// with different --hwdb-dir / --models-dir in one process).
template <class Db, class Load>
const Db& cached(const std::vector<std::string>& dirs, Load load) {
  static std::unique_ptr<Db> db;
  static std::vector<std::string> loaded_from;
  if (!db || loaded_from != dirs) {
    db = std::make_unique<Db>(load(dirs));
    loaded_from = dirs;
  }
  return *db;
}
}  // namespace

const hwdb::Database& hw_database(const Context& ctx) {
  return cached<hwdb::Database>(ctx.hwdb_dirs, [](const auto& d) { return hwdb::load(d); });
}

const models::Database& model_database(const Context& ctx) {
  return cached<models::Database>(ctx.models_dirs, [](const auto& d) { return models::load(d); });
}

ModelSpec resolve_model(const Context& ctx, const std::string& id_or_path) {
  ModelSpec m = models::resolve(model_database(ctx), id_or_path);
  validate_model(m);
  return m;
}

ChipSpec resolve_chip(const Context& ctx, const std::string& id) { return hw_database(ctx).get(id); }

PrecisionPlan resolve_plan(const ModelOptions& o) {
  // A GGUF file is sized from its own tensor table (exact bytes, mixed formats) unless a format was asked for.
  const std::string& m = o.model;
  if (!o.precision_given && o.class_precision.empty() && m.size() > 5 && m.compare(m.size() - 5, 5, ".gguf") == 0)
    return models::gguf_precision_plan(m, o.kv_precision);
  PrecisionPlan p;
  p.weights = find_format(o.precision).name;
  p.kv = find_format(o.kv_precision).name;
  for (const auto& spec : o.class_precision) {
    auto eq = spec.find('=');
    if (eq == std::string::npos) throw InputError("--class-precision '" + spec + "' must look like CLASS=FMT, e.g. experts=mxfp4");
    std::string cls = spec.substr(0, eq), fmt = spec.substr(eq + 1);
    bool found = false;
    std::vector<std::string> names;
    for (int c = 0; c < kParamClassCount; ++c) {
      names.push_back(param_class_name(static_cast<ParamClass>(c)));
      if (cls == names.back()) {
        p.per_class[static_cast<ParamClass>(c)] = find_format(fmt).name;
        found = true;
      }
    }
    if (!found) throw InputError(unknown_id_message("weight class", cls, names));
  }
  return p;
}

void check_threads(int threads) {
  if (threads < 0 || threads > 1024)
    throw InputError("--threads " + std::to_string(threads) + " is out of range; expected 1 to 1024 (or 0 = every CPU)");
}

int parse_device(const std::string& d) {
  if (d == "cpu") return -1;
  if (d.rfind("cuda:", 0) == 0 && d.size() > 5 && d.size() <= 8 &&
      d.find_first_not_of("0123456789", 5) == std::string::npos)
    return std::stoi(d.substr(5));
  throw InputError("unknown --device '" + d + "'; expected cpu or cuda:N (e.g. cuda:0)");
}

std::vector<std::string> parse_id_list(const std::string& name, const std::string& text) {
  if (text.empty() || text.front() == ',' || text.back() == ',' || text.find(",,") != std::string::npos)
    throw InputError("--" + name + " '" + text + "' has an empty item; expected a comma-separated list like a,b");
  std::vector<std::string> out;
  for (size_t pos = 0;;) {
    const size_t comma = text.find(',', pos);
    out.push_back(text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos) return out;
    pos = comma + 1;
  }
}

std::vector<int64_t> parse_list(const std::string& name, const std::string& text, int64_t max) {
  std::vector<int64_t> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (...) {
      used = 0;
    }
    if (item.empty() || used != item.size())
      throw InputError("--" + name + " '" + text + "': expected a positive integer or a comma-separated list like 1,8,64");
    if (v < 1 || v > max)
      throw InputError("--" + name + " " + item + " is out of range; expected 1 to " + std::to_string(max));
    out.push_back(v);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace rooftop::cli
