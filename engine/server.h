// rooftop serve: an OpenAI-compatible HTTP endpoint over BatchRunner (cpp-httplib from Debian).
//
// POST /v1/completions and /v1/chat/completions (stream or not), GET /v1/models and /health. One engine thread
// runs the scheduler's steps; HTTP threads parse requests, queue them, and wait on (or stream) their tokens.
// Bounds: the body size, max_tokens, prompt + max_tokens within a sequence's positions, and the requests in flight
// (beyond: 429). A streamed client that goes away frees its sequence at the next step; a non-streamed one is not
// noticed (its sequence runs to max_tokens). Stop strings ("stop", up to 4) end the text before the first one
// (a streamed tail that may begin one is held back until it cannot). stop() ends the engine thread, then the listen loop; requests still in
// flight end with finish_reason "abort".
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "engine/model.h"
#include "engine/serve.h"
#include "engine/tokenizer.h"
#include "kernels/cpu/thread_pool.h"

namespace rooftop::engine {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                   // 0: any free port
  RunnerLimits limits{8, 512, 16, 2048};
  int64_t max_tokens = 512;          // the most a request may ask for (its default: 16 for completions, as OpenAI's)
  int64_t max_in_flight = 32;        // requests queued or running; one more gets 429
  size_t max_body_bytes = 1 << 20;
  std::string model_name = "rooftop";
};

class Server {
 public:
  Server(const LlamaModel& model, const Tokenizer& tok, kernels::ThreadPool& pool, const ServerOptions& o);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds host:port; returns the port. InputError when it cannot (in use, bad address).
  int bind();
  // Serves until stop() (blocking). Requests in flight at stop() end with finish_reason "abort" (a stream gets
  // its last chunk and [DONE]) before the listener closes.
  void run();
  // From any thread (not a signal handler); before or during run(). The Server must outlive run().
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rooftop::engine
