// rooftop serve: HTTP threads queue requests and wait on (or stream) their channel; one engine thread owns the
// BatchRunner and feeds the channels.
#include "engine/server.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <ctime>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "base/errors.h"

namespace rooftop::engine {

using nlohmann::json;

namespace {

// The length of the longest prefix of s made of whole UTF-8 characters: a character split across tokens waits
// for its next token, so every streamed chunk is valid UTF-8.
size_t utf8_complete(const std::string& s) {
  const size_t n = s.size();
  for (size_t back = 1; back <= 4 && back <= n; ++back) {
    const auto c = static_cast<unsigned char>(s[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back for the lead
    const size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    return back < len ? n - back : n;
  }
  return n;
}

// What one request's HTTP thread and the engine thread share.
struct Channel {
  std::mutex m;
  std::condition_variable cv;
  std::string fresh;  // bytes produced and not yet taken by the stream
  std::string text;   // every byte produced (the non-streamed answer)
  bool done = false;
  std::string finish = "length";
  int64_t prompt_tokens = 0, completion_tokens = 0;
};

struct Pending {
  size_t id = 0;
  std::vector<int32_t> prompt;
  int64_t max_tokens = 0;
  SamplerConfig sampler;
  std::vector<std::string> stop;
};

// One request, parsed and checked.
struct Parsed {
  bool chat = false, stream = false;
  std::vector<int32_t> prompt;
  int64_t max_tokens = 0;
  SamplerConfig sampler;
  std::vector<std::string> stop;  // stop strings: the text ends before the first of them
};

// A request's text on its way out of the engine thread: bytes of a character split across tokens, whole
// characters held back because they may begin a stop string, and the stop strings.
struct TextOut {
  std::string partial, held;
  std::vector<std::string> stop;

  // Adds whole characters; returns what may be sent now. `hit` when a stop string appeared: the text ends
  // before it, and nothing after it is sent. `last`: nothing more comes, so nothing is held back.
  std::string take(const std::string& bytes, bool last, bool& hit) {
    partial += bytes;
    const size_t whole = last ? partial.size() : utf8_complete(partial);
    held += partial.substr(0, whole);
    partial.erase(0, whole);
    size_t cut = std::string::npos;
    for (const auto& s : stop) cut = std::min(cut, held.find(s));
    hit = cut != std::string::npos;
    // Else hold back the longest tail that begins some stop string (a stop string may span tokens).
    size_t keep = 0;
    if (!hit && !last)
      for (const auto& s : stop)
        for (size_t k = std::min(s.size() - 1, held.size()); k > keep; --k)
          if (held.compare(held.size() - k, k, s, 0, k) == 0) {
            keep = k;
            break;
          }
    const size_t send = hit ? cut : held.size() - keep;
    std::string out = held.substr(0, send);
    held.erase(0, hit ? held.size() : send);
    return out;
  }
};

json error_body(const std::string& message, const char* type) { return {{"error", {{"message", message}, {"type", type}}}}; }

}  // namespace

struct Server::Impl {
  const LlamaModel& model;
  const Tokenizer& tok;
  kernels::ThreadPool& pool;
  ServerOptions o;
  httplib::Server http;
  std::mutex m;  // guards inbox, cancels, channels, next_id
  std::condition_variable cv;
  std::vector<Pending> inbox;
  std::vector<size_t> cancels;
  std::unordered_map<size_t, std::shared_ptr<Channel>> channels;  // requests in flight
  size_t next_id = 1;
  std::atomic<bool> stopping{false};
  // Streamed responses still being written. httplib stops writing a chunked response once its listener
  // stops, so the listener stops only after these have sent their finish reason and [DONE] (or timed out).
  std::atomic<int> open_streams{0};

  Impl(const LlamaModel& mdl, const Tokenizer& t, kernels::ThreadPool& p, const ServerOptions& opt)
      : model(mdl), tok(t), pool(p), o(opt) {}

  // Ends a request: its channel is done, and it leaves the in-flight set.
  void finish(size_t id, const std::string& reason) {
    std::shared_ptr<Channel> ch;
    {
      std::lock_guard<std::mutex> lk(m);
      auto it = channels.find(id);
      if (it == channels.end()) return;
      ch = it->second;
      channels.erase(it);
    }
    std::lock_guard<std::mutex> lk(ch->m);
    ch->done = true;
    ch->finish = reason;
    ch->cv.notify_all();
  }

  void cancel(size_t id) {
    std::lock_guard<std::mutex> lk(m);
    cancels.push_back(id);
    cv.notify_all();
  }

  // Runs the engine until stopping; every request still in flight then ends ("abort", or "error" when the
  // engine failed), so no HTTP thread waits forever.
  void engine_loop() {
    try {
      engine_steps();
    } catch (...) {
      abort_all("error");
      throw;
    }
    abort_all("abort");
  }

  void abort_all(const std::string& reason) {
    std::vector<size_t> left;
    {
      std::lock_guard<std::mutex> lk(m);
      for (const auto& [id, ch] : channels) left.push_back(id);
    }
    for (size_t id : left) finish(id, reason);
  }

  void engine_steps() {
    BatchRunner runner(model, pool, o.limits);
    std::unordered_map<size_t, TextOut> texts;  // by request
    const auto& stops = tok.stop_ids();
    while (true) {
      std::vector<Pending> arrived;
      std::vector<size_t> gone;
      {
        std::unique_lock<std::mutex> lk(m);
        if (inbox.empty() && cancels.empty() && runner.idle() && !stopping) cv.wait_for(lk, std::chrono::milliseconds(100));
        if (stopping) break;
        arrived.swap(inbox);
        gone.swap(cancels);
      }
      for (auto& p : arrived) {  // checked when parsed; a refusal here ends that request alone
        try {
          runner.add(p.id, std::move(p.prompt), p.max_tokens, p.sampler);
          texts[p.id].stop = std::move(p.stop);
        } catch (const InputError&) {
          finish(p.id, "error");
        }
      }
      for (size_t id : gone) {
        runner.cancel(id);
        texts.erase(id);
        finish(id, "abort");
      }
      if (runner.idle()) continue;
      for (const BatchRunner::Token& t : runner.step()) {
        std::shared_ptr<Channel> ch;
        {
          std::lock_guard<std::mutex> lk(m);
          auto it = channels.find(t.id);
          if (it != channels.end()) ch = it->second;
        }
        const bool stop = std::find(stops.begin(), stops.end(), t.token) != stops.end();
        if (!ch) {  // cancelled while its step ran
          if (!t.finished) runner.cancel(t.id);
          continue;
        }
        // A stop token ends the text (a dangling partial character is flushed); a stop string cuts it.
        bool hit = false;
        const std::string out = texts[t.id].take(stop ? std::string() : tok.piece(t.token), stop || t.finished, hit);
        {
          std::lock_guard<std::mutex> lk(ch->m);
          if (!stop) ch->completion_tokens += 1;
          ch->fresh += out;
          ch->text += out;
          ch->cv.notify_all();
        }
        if (stop || hit || t.finished) {
          if (!t.finished) runner.cancel(t.id);
          texts.erase(t.id);
          finish(t.id, stop || hit ? "stop" : "length");
        }
      }
    }
  }

  // Parses and checks a request body; InputError (answered 400) with one line.
  Parsed parse(const std::string& body, bool chat) const {
    json j;
    try {
      j = json::parse(body);
    } catch (const json::exception&) {
      throw InputError("the body is not JSON; expected an object such as {\"prompt\": \"...\", \"max_tokens\": 16}");
    }
    if (!j.is_object()) throw InputError("the body must be a JSON object");
    Parsed p;
    p.chat = chat;
    auto number = [&](const char* key, double lo, double hi, double fallback) {
      if (!j.contains(key) || j[key].is_null()) return fallback;
      if (!j[key].is_number()) throw InputError(std::string(key) + " must be a number");
      const double v = j[key].get<double>();
      if (!(v >= lo && v <= hi)) throw InputError(std::string(key) + " must be in [" + json(lo).dump() + ", " + json(hi).dump() + "]");
      return v;
    };
    if (j.contains("stream")) {
      if (!j["stream"].is_boolean()) throw InputError("stream must be true or false");
      p.stream = j["stream"].get<bool>();
    }
    p.sampler.temperature = float(number("temperature", 0, 2, 1));
    p.sampler.top_p = float(number("top_p", 1e-6, 1, 1));
    p.sampler.seed = uint64_t(number("seed", 0, 9.0e15, 0));
    // stop: a string or up to 4 strings (OpenAI's limit), each 1 to 256 bytes.
    if (j.contains("stop") && !j["stop"].is_null()) {
      const json& st = j["stop"];
      const bool list = st.is_array();
      if (!st.is_string() && !(list && st.size() <= 4))
        throw InputError("stop must be a string or an array of up to 4 strings");
      for (const auto& x : list ? st : json::array({st})) {
        if (!x.is_string() || x.get<std::string>().empty() || x.get<std::string>().size() > 256)
          throw InputError("each stop string must be a string of 1 to 256 bytes");
        p.stop.push_back(x.get<std::string>());
      }
    }
    if (chat) {
      if (!j.contains("messages") || !j["messages"].is_array() || j["messages"].empty())
        throw InputError("messages must be a non-empty array of {\"role\": ..., \"content\": ...}");
      // The conversation in the model's template: system (or developer) text first, then user and assistant turns.
      std::optional<std::string> system;
      std::vector<std::string> texts;
      std::vector<bool> assistant;
      for (const auto& msg : j["messages"]) {
        if (!msg.is_object() || !msg.contains("role") || !msg["role"].is_string() || !msg.contains("content") || !msg["content"].is_string())
          throw InputError("each message needs a string role and a string content");
        const std::string role = msg["role"].get<std::string>();
        if (role == "system" || role == "developer") {
          system = (system ? *system + "\n\n" : std::string()) + msg["content"].get<std::string>();
        } else if (role == "user" || role == "assistant") {
          texts.push_back(msg["content"].get<std::string>());
          assistant.push_back(role == "assistant");
        } else {
          throw InputError("a message's role must be system, user or assistant, got '" + printable(role) + "'");
        }
      }
      if (texts.empty() || assistant.back()) throw InputError("messages must end with a user message");
      std::vector<Tokenizer::ChatTurn> turns;
      for (size_t i = 0; i < texts.size(); ++i) turns.push_back({assistant[i], texts[i]});
      p.prompt = tok.prompt_ids(tok.chat_prompt(turns, system ? std::optional<std::string_view>(*system) : std::nullopt), true);
    } else {
      if (!j.contains("prompt") || !j["prompt"].is_string()) throw InputError("prompt must be a string");
      p.prompt = tok.prompt_ids(j["prompt"].get<std::string>(), false);
    }
    if (p.prompt.empty()) throw InputError("the prompt is empty: at least one token is needed");
    const int64_t room = o.limits.capacity - int64_t(p.prompt.size());
    if (room < 1)
      throw InputError("the prompt has " + std::to_string(p.prompt.size()) + " tokens; a sequence holds " +
                       std::to_string(o.limits.capacity) + " (--context)");
    const char* key = chat && j.contains("max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
    const int64_t most = std::min(o.max_tokens, room);
    const double fallback = chat ? double(most) : double(std::min<int64_t>(16, most));
    if (j.contains(key) && !j[key].is_null() && !(j[key].is_number_integer()))
      throw InputError(std::string(key) + " must be a whole number");
    p.max_tokens = int64_t(number(key, 1, double(most), fallback));
    return p;
  }

  // Queues a parsed request; nullptr when the server is full or stopping (status set).
  std::shared_ptr<Channel> admit(Parsed& p, size_t& id, int& status) {
    auto ch = std::make_shared<Channel>();
    ch->prompt_tokens = int64_t(p.prompt.size());
    std::lock_guard<std::mutex> lk(m);
    if (stopping) {
      status = 503;
      return nullptr;
    }
    if (int64_t(channels.size()) >= o.max_in_flight) {
      status = 429;
      return nullptr;
    }
    id = next_id++;
    channels.emplace(id, ch);
    inbox.push_back({id, std::move(p.prompt), p.max_tokens, p.sampler, std::move(p.stop)});
    cv.notify_all();
    return ch;
  }

  json usage(const Channel& ch) const {
    return {{"prompt_tokens", ch.prompt_tokens}, {"completion_tokens", ch.completion_tokens},
            {"total_tokens", ch.prompt_tokens + ch.completion_tokens}};
  }

  void handle(const httplib::Request& req, httplib::Response& res, bool chat) {
    auto fail = [&](int status, const std::string& message, const char* type) {
      res.status = status;  // the message may quote the request's bytes: invalid UTF-8 is replaced
      res.set_content(error_body(message, type).dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
    };
    Parsed p;
    try {
      p = parse(req.body, chat);
    } catch (const InputError& e) {
      return fail(400, e.what(), "invalid_request_error");
    }
    size_t id = 0;
    int status = 0;
    std::shared_ptr<Channel> ch = admit(p, id, status);
    if (!ch) {
      return status == 429 ? fail(429, "the server has " + std::to_string(o.max_in_flight) + " requests in flight; retry later", "rate_limit_error")
                           : fail(503, "the server is shutting down", "server_error");
    }
    const std::string rid = (chat ? "chatcmpl-" : "cmpl-") + std::to_string(id);
    const auto created = int64_t(std::time(nullptr));
    const std::string object = chat ? "chat.completion" : "text_completion";
    if (!p.stream) {
      std::unique_lock<std::mutex> lk(ch->m);
      ch->cv.wait(lk, [&] { return ch->done; });
      json choice = {{"index", 0}, {"finish_reason", ch->finish}};
      if (chat) choice["message"] = {{"role", "assistant"}, {"content", ch->text}};
      else choice["text"] = ch->text;
      const json body = {{"id", rid}, {"object", object}, {"created", created}, {"model", o.model_name},
                         {"choices", json::array({choice})}, {"usage", usage(*ch)}};
      res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
      return;
    }
    // Server-sent events: one chunk per token's whole characters, then the finish reason, then [DONE].
    auto chunk = [=, this](const std::string& text, const json& finish, bool role) {
      json choice = {{"index", 0}, {"finish_reason", finish}};
      if (chat) {
        json delta = json::object();
        if (role) delta["role"] = "assistant";
        if (!text.empty() || role) delta["content"] = text;
        choice["delta"] = delta;
      } else {
        choice["text"] = text;
      }
      const json body = {{"id", rid}, {"object", chat ? "chat.completion.chunk" : "text_completion"}, {"created", created},
                         {"model", o.model_name}, {"choices", json::array({choice})}};
      return "data: " + body.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
    };
    auto started = std::make_shared<bool>(false);
    ++open_streams;
    res.set_chunked_content_provider(
        "text/event-stream",
        [this, ch, id, chunk, started, chat](size_t, httplib::DataSink& sink) {
          std::string out;
          bool done = false;
          std::string reason;
          {
            std::unique_lock<std::mutex> lk(ch->m);
            ch->cv.wait_for(lk, std::chrono::milliseconds(200), [&] { return ch->done || !ch->fresh.empty(); });
            if (!*started && chat) out += chunk("", nullptr, true);
            *started = true;
            if (!ch->fresh.empty()) out += chunk(ch->fresh, nullptr, false);
            ch->fresh.clear();
            done = ch->done;
            reason = ch->finish;
          }
          if (done) out += chunk("", reason, false) + "data: [DONE]\n\n";
          if (!out.empty() && !sink.write(out.data(), out.size())) {
            cancel(id);  // the client went away: free its sequence
            return false;
          }
          if (out.empty() && !sink.is_writable()) {
            cancel(id);
            return false;
          }
          if (done) sink.done();
          return true;
        },
        [this, ch, id](bool success) {
          --open_streams;
          if (success) return;
          bool done = false;
          {
            std::lock_guard<std::mutex> lk(ch->m);
            done = ch->done;
          }
          if (!done) cancel(id);
        });
  }
};

Server::Server(const LlamaModel& model, const Tokenizer& tok, kernels::ThreadPool& pool, const ServerOptions& o)
    : impl_(std::make_unique<Impl>(model, tok, pool, o)) {
  if (o.max_in_flight < 1 || o.max_tokens < 1) throw InputError("the server needs at least 1 request in flight and max_tokens >= 1");
  Impl& s = *impl_;
  // Threads for every request in flight plus a few for answering 429 while they wait.
  const size_t threads = size_t(o.max_in_flight) + 8;
  s.http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  s.http.set_payload_max_length(o.max_body_bytes);
  s.http.set_read_timeout(10, 0);
  s.http.set_write_timeout(10, 0);
  s.http.set_keep_alive_timeout(2);  // idle keep-alive connections hold a thread no longer than this
  s.http.Get("/health", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok\n", "text/plain"); });
  s.http.Get("/v1/models", [&s](const httplib::Request&, httplib::Response& res) {
    const json body = {{"object", "list"}, {"data", json::array({{{"id", s.o.model_name}, {"object", "model"}, {"owned_by", "rooftop"}}})}};
    res.set_content(body.dump(), "application/json");
  });
  s.http.Post("/v1/completions", [&s](const httplib::Request& req, httplib::Response& res) { s.handle(req, res, false); });
  s.http.Post("/v1/chat/completions", [&s](const httplib::Request& req, httplib::Response& res) { s.handle(req, res, true); });
}

Server::~Server() {
  stop();
}

int Server::bind() {
  Impl& s = *impl_;
  const int port = s.o.port == 0 ? s.http.bind_to_any_port(s.o.host) : (s.http.bind_to_port(s.o.host, s.o.port) ? s.o.port : -1);
  if (port <= 0)
    throw InputError("cannot listen on " + printable(s.o.host) + ":" + std::to_string(s.o.port) +
                     " (in use, or not an address of this machine); expected a free --port and a local --host");
  return port;
}

void Server::run() {
  Impl& s = *impl_;
  std::string failure;  // the engine thread's error, if it ended on one
  std::atomic<bool> listened{false};
  // The engine thread runs until stop() (or its own failure), ends every request in flight, then stops the
  // listener, again until listen has returned: httplib's stop() does nothing before listen has started.
  std::thread engine([&s, &failure, &listened] {
    try {
      s.engine_loop();
    } catch (const std::exception& e) {
      failure = e.what();
      s.stopping = true;
    }
    // Every request has ended; let the streams write their last event (a client that stopped reading
    // holds this at most 3 s).
    for (int i = 0; i < 300 && s.open_streams > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    while (!listened) {
      s.http.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  s.http.listen_after_bind();
  listened = true;
  s.stopping = true;  // listen ended on its own (a socket error): the engine stops too
  s.cv.notify_all();
  engine.join();
  if (!failure.empty()) throw InternalError("serve: the engine thread failed: " + failure);
}

void Server::stop() {
  impl_->stopping = true;
  impl_->cv.notify_all();
}

}  // namespace rooftop::engine
