// rooftop serve: the engine behind an OpenAI-compatible HTTP endpoint, until SIGTERM or SIGINT.
#include <fmt/format.h>

#include <atomic>
#include <filesystem>
#include <csignal>
#include <thread>

#include "cli/cli.h"
#include "cli/common.h"
#include "engine/model.h"
#include "engine/model_path.h"
#include "engine/server.h"
#include "engine/tokenizer.h"
#include "kernels/cpu/thread_pool.h"

namespace rooftop::cli {
namespace {

std::atomic<bool> g_signalled{false};
extern "C" void on_signal(int) { g_signalled = true; }  // only sets a flag: async-signal-safe

}  // namespace

void register_serve(CLI::App& app, Context& ctx) {
  struct ServeCli {
    std::string gguf;
    engine::ServerOptions so;
    int threads = 0;
  };
  auto o = std::make_shared<ServeCli>();
  auto* cmd = app.add_subcommand("serve",
                                 "an OpenAI-compatible HTTP endpoint over the engine (/v1/completions, /v1/chat/completions, "
                                 "streaming), continuous batching with the simulator's scheduler\n"
                                 "Example: rooftop serve --port 8080 --max-seqs 8 (then: curl localhost:8080/v1/completions "
                                 "-d '{\"prompt\": \"The capital of France is\", \"max_tokens\": 8}')");
  add_gguf_option(*cmd, o->gguf);
  cmd->add_option("--host", o->so.host, "address to listen on (127.0.0.1: this machine only)")->capture_default_str();
  cmd->add_option("--port", o->so.port, "TCP port (0: any free port, printed)")->capture_default_str()->check(in_range(0, 65535));
  cmd->add_option("--max-seqs", o->so.limits.max_seqs, "sequences per step (and KV slots)")->capture_default_str()->check(in_range(1, 1024));
  cmd->add_option("--token-budget", o->so.limits.token_budget, "tokens per step, decodes and prefill chunks together")->capture_default_str()->check(in_range(1, 65536));
  cmd->add_option("--context", o->so.limits.capacity, "positions per sequence: prompt + max_tokens at most")->capture_default_str()->check(in_range(2, 131072));
  cmd->add_option("--max-tokens", o->so.max_tokens, "the most tokens a request may ask for")->capture_default_str()->check(in_range(1, 131072));
  cmd->add_option("--max-in-flight", o->so.max_in_flight, "requests queued or running; one more is answered 429")->capture_default_str()->check(in_range(1, 4096));
  add_threads_option(*cmd, o->threads);
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      check_threads(o->threads);
      struct sigaction sa {};  // first: a SIGTERM while the model loads also stops cleanly
      sa.sa_handler = on_signal;
      sigemptyset(&sa.sa_mask);
      sigaction(SIGTERM, &sa, nullptr);
      sigaction(SIGINT, &sa, nullptr);
      const std::string path = engine::resolve_model(o->gguf);
      engine::LlamaModel model = engine::load_llama(path);
      const auto tok = engine::Tokenizer::take_from_gguf(model.file);
      model.file.populate();
      if (o->so.limits.capacity > model.cfg.context)
        throw InputError(fmt::format("--context {} exceeds the model's context of {} tokens", o->so.limits.capacity, model.cfg.context));
      kernels::ThreadPool pool(o->threads);
      engine::ServerOptions so = o->so;
      so.model_name = std::filesystem::path(path).stem().string();
      if (g_signalled) return kExitOk;  // stopped while loading
      engine::Server server(model, tok, pool, so);
      const int port = server.bind();
      ctx.err << fmt::format("rooftop serve: http://{}:{} ({}, {} sequences of {} positions, KV {:.0f} MB; SIGTERM or Ctrl-C stops)",
                             so.host, port, so.model_name, so.limits.max_seqs, so.limits.capacity,
                             model.cfg.kv_cache_bytes(so.limits.capacity) * double(so.limits.max_seqs) / 1e6)
              << std::endl;
      std::atomic<bool> finished{false};
      std::thread watcher([&] {  // stop() is not async-signal-safe: called from here
        while (!finished) {
          if (g_signalled) server.stop();
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
      });
      try {
        server.run();
      } catch (...) {
        finished = true;
        watcher.join();
        throw;
      }
      finished = true;
      watcher.join();
      ctx.err << "rooftop serve: stopped" << std::endl;
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
