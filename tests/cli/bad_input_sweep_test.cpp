// The bad-input contract, swept over the real executable (issue 18): every command with hostile
// values, files and output paths. Bad input ends with exit 2 and one line on stderr; an accepted
// value ends with exit 0 and no NaN or infinity printed; nothing hangs, crashes or is half-written.
// The inputs are the tables below, not prose.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/files.h"
#include "hwdb/calibration.h"
#include "hwdb/hwdb.h"

extern char** environ;
namespace fs = std::filesystem;

namespace {

const std::string kBinary = std::string(ROOFTOP_BINARY_DIR) + "/rooftop";
const std::string kRegressions = std::string(ROOFTOP_SOURCE_DIR) + "/tests/fuzz/regressions";

struct Outcome {
  int code = -1;  // exit status; 128 + signal when killed; -2 when it hung and was killed
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

fs::path scratch() {
  static const fs::path d = [] {
    fs::path p = fs::temp_directory_path() / ("rooftop_sweep_" + std::to_string(::getpid()));
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
  }();
  return d;
}

// Runs rooftop with `args` (stdout and stderr to files), killed after `timeout_s`. `env` entries
// (NAME=value) are added to the environment. file_limit > 0: the child may write no file larger than
// that many bytes (RLIMIT_FSIZE, SIGXFSZ ignored), so a write fails half-way with EFBIG.
Outcome run(const std::vector<std::string>& args, double timeout_s = 30, const std::vector<std::string>& env = {},
            rlim_t file_limit = 0) {
  const fs::path out = scratch() / "stdout", err = scratch() / "stderr";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> all{kBinary};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> envs(env);
  for (char** e = environ; *e; ++e) {  // the inherited ones, less those `env` sets
    const std::string kv(*e);
    bool replaced = false;
    for (const auto& mine : env) replaced |= kv.compare(0, mine.find('=') + 1, mine, 0, mine.find('=') + 1) == 0;
    if (!replaced) envs.push_back(kv);
  }
  std::vector<char*> envp;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  struct rlimit old_limit{};
  ::getrlimit(RLIMIT_FSIZE, &old_limit);
  auto old_handler = SIG_DFL;
  if (file_limit > 0) {  // inherited by the child: the limit, and SIGXFSZ ignored (write returns EFBIG)
    old_handler = ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = old_limit;
    lim.rlim_cur = file_limit;
    ::setrlimit(RLIMIT_FSIZE, &lim);
  }
  const int spawned = posix_spawn(&pid, kBinary.c_str(), &fa, nullptr, argv.data(), envp.data());
  if (file_limit > 0) {
    ::setrlimit(RLIMIT_FSIZE, &old_limit);
    ::signal(SIGXFSZ, old_handler);
  }
  REQUIRE(spawned == 0);
  posix_spawn_file_actions_destroy(&fa);
  Outcome o;
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  for (;;) {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout_s) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      o.code = -2;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (o.code != -2) o.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.out = slurp(out);
  o.err = slurp(err);
  return o;
}

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1 && s.size() < 600; }

const std::regex kNonFinite(R"(\b(nan|inf|infinity)\b)", std::regex::icase);

// The contract for one command line whose input may or may not be valid.
void check_contract(const std::vector<std::string>& args, const Outcome& o) {
  std::string shown;
  for (const auto& a : args) shown += (a.size() > 60 ? a.substr(0, 60) + "..." : a) + " ";
  INFO("rooftop " << shown << "-> exit " << o.code << "\nstderr: " << o.err.substr(0, 600));
  CHECK((o.code == 0 || o.code == 2));
  if (o.code == 2) CHECK(one_line(o.err));
  if (o.code == 0) CHECK_FALSE(std::regex_search(o.out, kNonFinite));
}

// Bad for sure: exit 2, one line.
void check_bad(const std::vector<std::string>& args, double timeout_s = 30, const std::vector<std::string>& env = {}) {
  const Outcome o = run(args, timeout_s, env);
  std::string shown;
  for (const auto& a : args) shown += (a.size() > 60 ? a.substr(0, 60) + "..." : a) + " ";
  INFO("rooftop " << shown << "-> exit " << o.code << "\nstderr: " << o.err.substr(0, 600));
  CHECK(o.code == 2);
  CHECK(one_line(o.err));
}

const std::vector<std::string> kHostile = {"0", "-1", "1e18", "9223372036854775808", "-9223372036854775809",
                                           "nan", "inf", "-inf", "", "1.5", std::string(100000, '7')};

struct Sweep {
  std::vector<std::string> base;     // a valid command line
  std::vector<std::string> options;  // each gets every hostile value in turn
  std::vector<std::string> skip;     // values that are valid and would start a long job
};

// Every command that takes numbers, each with every numeric option.
const std::vector<Sweep> kSweeps = {
    {{"fit", "-m", "llama-3.1-8b", "--hw", "h100-sxm"},
     {"-c", "-b", "--tp", "--pp", "--prefill-chunk", "--usable-fraction", "--overhead-bytes"}, {}},
    {{"speed", "-m", "llama-3.1-8b", "--hw", "h100-sxm", "-b", "1,8"},
     {"-b", "--prompt-tokens", "--output-tokens", "-c", "--prefill-chunk", "--tp", "--pp", "--ep", "--usd-per-hour",
      "--watts", "--bandwidth-efficiency", "--flops-efficiency", "--layer-overhead", "--draft-len", "--acceptance",
      "--draft-cost"},
     {}},
    {{"cost", "-m", "llama-3.1-8b", "--hw", "h100-sxm", "-b", "1,8"},
     {"-b", "--prompt-tokens", "--output-tokens", "--usd-per-hour", "--watts"}, {}},
    {{"roofline", "-m", "llama-3.1-8b", "--hw", "h100-sxm"}, {"-b", "--prompt-tokens", "-c"}, {}},
    {{"compare", "-m", "llama-3.1-8b"}, {"-b", "-c", "--prompt-tokens", "--output-tokens"}, {}},
    {{"report", "-m", "smollm2-135m", "--hw", "h100-sxm", "-b", "1,8"},
     {"-b", "-c", "--prompt-tokens", "--output-tokens"}, {}},
    {{"run", "-p", "hi", "-n", "2"},
     {"-n", "--temperature", "--top-k", "--top-p", "--seed", "--show-logits", "--threads", "--context"}, {}},
    {{"simulate", "-m", "llama-3.1-8b", "--hw", "h100-sxm", "--requests", "20"},
     {"--rate", "--concurrency", "--prompt-tokens", "--output-tokens", "--seed", "--tp", "--max-seqs", "--token-budget",
      "--block-tokens", "--slo-ttft", "--slo-tpot"},
     {}},
    {{"plan", "-m", "llama-3.1-8b", "--hw", "h100-sxm", "--rate", "5", "--requests", "20"},
     {"--rate", "--prompt-tokens", "--output-tokens", "--slo-ttft-p99", "--slo-tpot-p99", "--max-devices", "--requests", "--seed"},
     {}},
    // Long jobs: only the values that must be refused before anything runs.
    {{"quant", "--gguf", "smollm2"}, {"--max-values"}, {}},
    {{"validate", "--quick"}, {"--threads", "--max-memory"}, {"0", "1e18", "1.5"}},
    {{"calibrate", "--quick"}, {"--threads"}, {"0"}},
};

bool have_model() { return fs::exists(rooftop::cache_dir() + "/models/SmolLM2-135M-Instruct.Q4_1.gguf"); }

}  // namespace

TEST_CASE("bad-input sweep: every numeric option of every command with hostile values") {
  int tried = 0;
  for (const auto& s : kSweeps) {
    if (s.base[0] == "run" && !have_model()) continue;  // fetched by scripts/setup.sh
    for (const auto& opt : s.options)
      for (const auto& v : kHostile) {
        if (std::find(s.skip.begin(), s.skip.end(), v) != s.skip.end()) continue;
        std::vector<std::string> args = s.base;
        args.push_back(opt);
        args.push_back(v);
        check_contract(args, run(args));
        ++tried;
      }
  }
  WARN("bad-input sweep: " << tried << " command lines");
  CHECK(tried > 300);
}

TEST_CASE("bad-input sweep: values that are out of range are refused, not replaced") {
  // Each was accepted with exit 0 before issue 18 (defaults silently used, "n/a" rows, unused flags).
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"fit", "-m", "llama-3.1-8b", "--usable-fraction", "nan"},
           {"fit", "-m", "llama-3.1-8b", "--usable-fraction", "-0.5"},
           {"fit", "-m", "llama-3.1-8b", "--overhead-bytes", "-1e12"},
           {"fit", "-m", "llama-3.1-8b", "--overhead-bytes", "1e400"},
           {"cost", "-m", "llama-3.1-8b", "--watts", "inf"},
           {"compare", "-m", "llama-3.1-8b", "-b", "0"},
           {"compare", "-m", "llama-3.1-8b", "-b", "-1"},
           {"compare", "-m", "llama-3.1-8b", "--output-tokens", "0"},
           {"speed", "-m", "llama-3.1-8b", "--acceptance", "1.5"},
           {"speed", "-m", "llama-3.1-8b", "--acceptance", "0.5"},  // valid value, but no draft to use it
           {"simulate", "-m", "llama-3.1-8b", "--rate", "5", "--concurrency", "4"},  // two loads
           {"simulate", "-m", "llama-3.1-8b"},                                      // no load
           {"simulate", "-m", "llama-3.1-70b", "--hw", "rtx-4090", "--rate", "1"},  // weights leave no KV memory
           {"roofline", "--hw", "h100-sxm", "-m", "llama-3.1-8b", "--format", "svg"},  // svg: the chip alone
           {"report", "-m", "llama-3.1-8b", "--interactive"},  // a page needs --format html
           {"report", "-m", "llama-3.1-8b,", "--interactive", "--format", "html"},  // an empty list item
           {"report", "-m", "llama-3.1-8b,qwen2.5-7b,mixtral-8x7b", "--hw", "h100-sxm,h200,rtx-4090,a100-80g,l40s",
            "-p", "bf16,fp8,int4,q4_0,q8_0", "--interactive", "--format", "html"},  // 75 combinations: too large a page
           {"run", "-p", "hi", "-n", "9223372036854775807"},
           // seeds: each of these ran before with a wrapped or defaulted seed (-1 as 18446744073709551615, "" as 0,
           // -9223372036854775809 as 9223372036854775807)
           {"simulate", "-m", "llama-3.1-8b", "--rate", "1", "--seed", "-1"},
           {"simulate", "-m", "llama-3.1-8b", "--rate", "1", "--seed", ""},
           {"simulate", "-m", "llama-3.1-8b", "--rate", "1", "--seed", "-9223372036854775809"},
           {"simulate", "-m", "llama-3.1-8b", "--rate", "1", "--seed", "1.5"},
           {"plan", "-m", "llama-3.1-8b", "--rate", "5", "--seed", "18446744073709551616"},
           {"bench-serve", "--rate", "1", "--seed", "-1"},
           {"synth", "--model", "smollm2-135m", "--format", "q4_0", "-o", "/tmp/rooftop-never-written.gguf", "--seed", "4294967296"},
           {"run", "-p", "hi", "--seed", "-1"},
           {"run", "-p", "hi", "--context", "100000000"},
       }) {
    if (args[0] == "run" && !have_model()) continue;
    check_bad(args);
  }
}

TEST_CASE("bad-input sweep: hostile files are refused with one line (the issue-18 reproducers)") {
  const std::string r = kRegressions;
  const fs::path d = scratch();
  fs::create_directories(d / "empty_dir");
  fs::remove(d / "fifo.json");
  REQUIRE(::mkfifo((d / "fifo.json").c_str(), 0600) == 0);
  { std::ofstream(d / "garbage.gguf") << "GGUF\x03not really"; }
  { std::ofstream(d / "config.json") << "{\"model_type\": \"llama\", \"vocab_size\": 1e400}"; }
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"model", "show", r + "/gguf/block_count_7e16.gguf"},  // hung: a loop over 7.2e16 layers
           {"model", "show", r + "/gguf/dims_wrap_int64.gguf"},
           {"fit", "-m", r + "/gguf/block_count_7e16.gguf"},
           {"model", "show", r + "/hf_config/nested_100k.json"},  // SIGSEGV: the message dumped the value
           {"model", "show", r + "/hf_config/hidden_not_divisible.json"},
           {"--hwdb", r + "/cards", "hw", "show", "huge"},  // printed numbers hundreds of digits long
           {"--hwdb", "/nonexistent/cards", "hw", "list"},
           {"--models", (d / "empty_dir").string() + "/none", "model", "list"},
           {"model", "show", (d / "empty_dir").string()},
           {"model", "show", (d / "garbage.gguf").string()},
           {"model", "show", (d / "config.json").string()},
           {"model", "show", "/nonexistent/model.gguf"},
           {"model", "show", std::string(100000, 'm')},
           {"fit", "-m", "/dev/zero"},                       // not a .json/.gguf/.yaml
           {"model", "show", (d / "fifo.json").string()},  // a FIFO nobody writes: refused, not a hang
           {"run", "--gguf", (d / "empty_dir").string(), "-p", "hi"},
           {"run", "--gguf", r + "/gguf/block_count_7e16.gguf", "-p", "hi"},
           {"tokenize", "--gguf", (d / "garbage.gguf").string(), "hello"},
       })
    check_bad(args, 20);
}

TEST_CASE("bad-input sweep: a hostile calibration file is ignored with one notice, not a crash") {
  const fs::path cache = scratch() / "cache";
  fs::create_directories(cache / "calibration");
  fs::copy_file(kRegressions + "/calibration/nested_100k.json", cache / "calibration" / "local.json",
                fs::copy_options::overwrite_existing);
  for (const auto& args : std::vector<std::vector<std::string>>{{"hw", "show", "cpu"}, {"fit", "-m", "smollm2-135m", "--hw", "cpu"}}) {
    const Outcome o = run(args, 30, {"ROOFTOP_CACHE_DIR=" + cache.string()});
    INFO(o.err);
    CHECK(o.code == 0);
    CHECK(one_line(o.err));
    CHECK(o.err.find("ignoring calibration file") != std::string::npos);
  }
}

TEST_CASE("bad-input sweep: a calibration file with this machine's fingerprint but hostile fields is ignored") {
  const fs::path cache = scratch() / "cache_typed";
  fs::create_directories(cache / "calibration");
  // This machine's fingerprint and the current schema, so the reader goes past both checks.
  const std::string fp = rooftop::hwdb::machine_fingerprint(rooftop::hwdb::detect_host_cpu());
  const std::string head = R"({"schema": ")" + std::string(rooftop::hwdb::calibration_schema) +
                           R"(", "machine": {"fingerprint": )" + nlohmann::json(fp).dump() +
                           R"(}, "date": "2026-11-30T00:00:00Z", "memory_bandwidth_bytes_per_s": 3e10, )";
  for (const std::string& tail : {std::string(R"("quick": 7})"),  // a field of the wrong type
                                  R"("kernels": [{"name": "gemv_q4_1_stream_k)" + std::string(400, '9') +
                                      R"(", "bytes_per_s": 3e10}]})"}) {
    { std::ofstream(cache / "calibration" / "local.json") << head << tail; }
    for (const auto& args : std::vector<std::vector<std::string>>{{"hw", "show", "cpu"}, {"speed", "-m", "smollm2-135m", "--hw", "cpu", "-b", "1"}}) {
      const Outcome o = run(args, 30, {"ROOFTOP_CACHE_DIR=" + cache.string()});
      INFO(o.err);
      CHECK((o.code == 0 || o.code == 2));
      CHECK(o.err.find("internal error") == std::string::npos);
    }
  }
}

TEST_CASE("bad-input sweep: -o does what a user means, or refuses with one line and writes nothing") {
  const fs::path d = scratch() / "out";
  fs::create_directories(d);
  const std::vector<std::string> fit = {"fit", "-m", "llama-3.1-8b", "--format", "json"};
  auto with_o = [&](const std::string& path) {
    auto a = fit;
    a.push_back("-o");
    a.push_back(path);
    return a;
  };
  check_bad(with_o(d.string()));                          // a folder ("cannot write '/tmp': Success" before)
  check_bad(with_o((d / "missing" / "x.json").string()));  // a missing folder
  check_bad(with_o("/proc/rooftop.json"));                 // a folder nobody can create files in, root included
  check_bad(with_o(""));
  if (fs::exists("/dev/full")) check_bad(with_o("/dev/full"));  // exit 0 and the device replaced before
  struct stat st{};
  if (fs::exists("/dev/full")) {
    REQUIRE(::stat("/dev/full", &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
  }
  // /dev/null stays a device; a symlink is written through and kept.
  Outcome o = run(with_o("/dev/null"));
  CHECK(o.code == 0);
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  { std::ofstream(d / "real.json") << "old"; }
  fs::create_symlink(d / "real.json", d / "link.json");
  o = run(with_o((d / "link.json").string()));
  CHECK(o.code == 0);
  CHECK(fs::is_symlink(fs::symlink_status(d / "link.json")));
  CHECK(slurp(d / "real.json").find("\"weights_bytes\"") != std::string::npos);
  // A write that fails half-way (the file-size limit: EFBIG after 256 bytes of a ~2 kB report) keeps
  // the old content and leaves no temp file behind.
  { std::ofstream(d / "keep.json") << "old content"; }
  const Outcome failed = run(with_o((d / "keep.json").string()), 30, {}, 256);
  INFO(failed.err);
  CHECK(failed.code == 2);
  CHECK(one_line(failed.err));
  CHECK(failed.err.find("File too large") != std::string::npos);
  CHECK(slurp(d / "keep.json") == "old content");
  check_bad({"fit", "-m", "no-such-model", "-o", (d / "keep.json").string()});  // fails before writing
  CHECK(slurp(d / "keep.json") == "old content");
  int files = 0;
  for (const auto& e : fs::directory_iterator(d)) files += e.path().filename().string()[0] != '.';
  int hidden = 0;
  for (const auto& e : fs::directory_iterator(d)) hidden += e.path().filename().string()[0] == '.';
  CHECK(hidden == 0);
  CHECK(files == 3);  // real.json, link.json, keep.json
}

TEST_CASE("bad-input sweep: a second calibrate is refused while one holds the lock") {
  const fs::path cache = scratch() / "lock_cache";
  rooftop::FileLock held((cache / "calibration" / "local.json.lock").string(), "test");
  const auto start = std::chrono::steady_clock::now();
  check_bad({"calibrate", "--quick"}, 30, {"ROOFTOP_CACHE_DIR=" + cache.string()});
  // Refused before measuring anything (a quick calibration takes ~17 s here, longer under the sanitizers; 10 s leaves
  // room for a slow start of the sanitizer build on a busy 2-core VM).
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 10);
  CHECK_FALSE(fs::exists(cache / "calibration" / "local.json"));
}
