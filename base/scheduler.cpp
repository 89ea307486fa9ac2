// The continuous-batching scheduler (see scheduler.h for its policies).
#include "base/scheduler.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "base/errors.h"

namespace rooftop {

Scheduler::Scheduler(const SchedulerLimits& limits, std::function<double(int64_t)> footprint)
    : limits_(limits), footprint_(std::move(footprint)) {
  if (limits_.max_seqs < 1 || limits_.token_budget < 1 || limits_.block_tokens < 1)
    throw InputError("scheduler limits must be >= 1 (sequences per step, tokens per step, tokens per KV page)");
  if (!(limits_.kv_budget_bytes > 0) || !std::isfinite(limits_.kv_budget_bytes))
    throw InputError("no memory is left for the KV cache after the weights; use more devices (--tp) or a smaller format");
}


void Scheduler::arrive(size_t id, int64_t prompt, int64_t output, int64_t prefix_id, int64_t prefix_tokens, bool prefilled) {
  if (prompt < 1 || output < 1) throw InputError("every request needs a prompt and an output of at least 1 token");
  if (prefilled && (output < 2 || prefix_id >= 0))
    throw InputError("a prefilled request needs an output of at least 2 tokens (its first came with it) and no shared prefix");
  if (prefix_id >= 0 && (prefix_tokens < 1 || prefix_tokens > prompt))
    throw InputError("a shared prefix must be 1 to " + std::to_string(prompt) + " tokens (the prompt), got " + std::to_string(prefix_tokens));
  if (footprint_(prompt + output) > limits_.kv_budget_bytes)
    throw InputError("a request of " + std::to_string(prompt) + " + " + std::to_string(output) +
                     " tokens does not fit in the KV memory left after the weights (" +
                     std::to_string(static_cast<int64_t>(limits_.kv_budget_bytes / 1e6)) +
                     " MB per device); use more devices or shorter requests");
  Sequence s;
  s.id = id;
  s.prompt = prompt;
  s.output = output;
  s.target = prompt;
  s.prefix_id = prefix_id;
  s.prefix_tokens = prefix_id >= 0 ? prefix_tokens : 0;
  if (prefilled) {  // its first token came with it; the next step feeds that token after the prompt
    s.transferred = prompt;
    s.generated = 1;
    s.target = prompt + 1;
  }
  waiting_.push_back(s);
}

// Book pages for `tokens` tokens beyond the cache (none while within what is already booked).
bool Scheduler::grow(Sequence& s, int64_t tokens) {
  const double shared = s.shared > 0 ? prefix_bytes(s.shared) : 0.0;
  const double need = std::max(0.0, footprint_(s.cached + tokens) - shared - s.held);
  if (!make_room(need)) return false;
  used_ += need;
  s.held += need;
  return true;
}

bool Scheduler::make_room(double need) {
  while (used_ + need > limits_.kv_budget_bytes) {
    auto lru = prefixes_.end();
    for (auto it = prefixes_.begin(); it != prefixes_.end(); ++it)
      if (it->second.users == 0 && (lru == prefixes_.end() || it->second.last_used < lru->second.last_used)) lru = it;
    if (lru == prefixes_.end()) return false;
    used_ = std::max(0.0, used_ - lru->second.bytes);
    prefixes_.erase(lru);
  }
  return true;
}

void Scheduler::detach(Sequence& s) {
  if (s.shared > 0) {
    auto it = prefixes_.find(s.prefix_id);
    if (it != prefixes_.end()) it->second.users -= 1;
  }
  s.shared = 0;
}

// Recompute: the sequence drops its cache and waits at the front; when admitted again it feeds its prompt and
// every token it generated, and the pass over the last of them gives its next token.
void Scheduler::preempt(size_t index) {
  Sequence s = running_[index];
  running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(index));
  used_ = std::max(0.0, used_ - s.held);
  detach(s);
  s.held = 0;
  s.cached = 0;
  s.target = s.prompt + s.generated;
  s.transferred = 0;  // the brought KV is gone with the cache: recomputed
  s.restart = true;
  waiting_.push_front(s);
  preempted_.push_back(s.id);
  ++preemptions_;
}

std::vector<ScheduledSlice> Scheduler::plan() {
  planned_.clear();
  preempted_.clear();
  int64_t budget = limits_.token_budget;
  for (size_t i = 0; i < running_.size() && budget > 0;) {
    Sequence& s = running_[i];
    const int64_t want = s.cached < s.target ? std::min(s.target - s.cached, budget) : 1;
    if (grow(s, want)) {
      planned_.emplace_back(i++, want);
      budget -= want;
    } else {
      preempt(running_.size() - 1);  // the newest: later in the list than i, or i itself
    }
  }
  ++steps_;
  // (After a preemption, admissions only when nothing runs: a sequence that preempted itself comes back.)
  while ((preempted_.empty() || running_.empty()) && !waiting_.empty() && budget > 0 &&
         static_cast<int64_t>(running_.size()) < limits_.max_seqs) {
    Sequence& s = waiting_.front();
    s.cached = std::max(s.cached, s.transferred);  // KV that came with it needs pages, not a prefill
    // A cached prefix: its whole pages before the last token to feed are skipped.
    Prefix* hit = nullptr;
    if (s.prefix_id >= 0 && s.cached == 0)
      if (auto it = prefixes_.find(s.prefix_id); it != prefixes_.end()) {
        const int64_t b = limits_.block_tokens;
        const int64_t skip = std::min({it->second.tokens, s.prefix_tokens / b * b, (s.target - 1) / b * b});
        if (skip > 0) {
          hit = &it->second;
          s.shared = s.cached = skip;
          hit->users += 1;
        }
      }
    if (!grow(s, s.target - s.cached)) {
      if (!hit) break;
      // The prefix kept in full and the sequence's own copy of its last page may not fit together: without it.
      detach(s);
      s.cached = 0;
      hit = nullptr;
      if (!grow(s, s.target)) break;
    }
    if (hit) {
      hit->last_used = steps_;
      prefix_hit_tokens_ += s.cached;
    }
    const int64_t want = std::min(s.target - s.cached, budget);
    running_.push_back(s);
    waiting_.pop_front();
    planned_.emplace_back(running_.size() - 1, want);
    budget -= want;
  }
  std::vector<ScheduledSlice> out;
  out.reserve(planned_.size());
  for (const auto& [i, want] : planned_) {
    Sequence& s = running_[i];
    out.push_back({s.id, want, s.cached, s.restart});
    s.restart = false;
  }
  if (out.empty() && !idle()) throw InternalError("scheduler: sequences wait but no step could be planned");
  return out;
}

bool Scheduler::cancel(size_t id) {
  if (!planned_.empty()) throw InternalError("scheduler: cancel inside a step");
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it)
    if (it->id == id) {
      waiting_.erase(it);
      return false;
    }
  for (auto it = running_.begin(); it != running_.end(); ++it)
    if (it->id == id) {
      used_ = std::max(0.0, used_ - it->held);
      detach(*it);
      running_.erase(it);
      return true;
    }
  return false;
}

std::vector<StepOutput> Scheduler::finish_step() {
  std::vector<StepOutput> out;
  std::vector<size_t> leaving;  // indices in running_, ascending
  for (const auto& [i, want] : planned_) {
    Sequence& s = running_[i];
    s.cached += want;
    // Its prefix prefilled and not cached yet: the prefix's whole pages move from the sequence to the cache.
    if (s.prefix_id >= 0 && s.shared == 0 && s.cached >= s.prefix_tokens && !prefixes_.count(s.prefix_id)) {
      const int64_t pages = s.prefix_tokens / limits_.block_tokens * limits_.block_tokens;
      if (pages > 0) {
        const double bytes = prefix_bytes(pages);
        prefixes_[s.prefix_id] = Prefix{pages, bytes, 1, steps_};
        s.held -= bytes;
        s.shared = pages;
      }
    }
    if (s.cached < s.target) continue;  // a prefill chunk with more to come
    const bool first = s.generated == 0;
    s.generated += 1;
    s.target = s.cached + 1;  // the next step feeds the token just produced
    const bool finished = s.generated >= s.output;
    if (finished) leaving.push_back(i);
    out.push_back({s.id, first, finished});
  }
  for (auto it = leaving.rbegin(); it != leaving.rend(); ++it) {
    used_ = std::max(0.0, used_ - running_[*it].held);
    detach(running_[*it]);
    running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(*it));
  }
  planned_.clear();
  return out;
}

std::vector<ServingRequest> poisson_requests(int64_t n, double rate, int64_t prompt, int64_t output, uint64_t seed) {
  if (!(rate > 0) || !std::isfinite(rate)) throw InputError("--rate must be a number > 0 (requests per second)");
  std::mt19937_64 gen(seed);
  std::exponential_distribution<double> gap(rate);
  std::vector<ServingRequest> r(static_cast<size_t>(std::max<int64_t>(0, n)));
  double t = 0;
  for (auto& q : r) {
    t += gap(gen);
    q = {t, prompt, output};
  }
  return r;
}

ArrivalClock::ArrivalClock(const std::vector<ServingRequest>& requests, int64_t concurrency)
    : arrival_(requests.size(), 0), order_(requests.size()), closed_(concurrency > 0), concurrency_(concurrency) {
  for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
  if (closed_) {  // one request per client at 0, then one per completion, in request order
    for (size_t i = 0; i < arrival_.size(); ++i) arrival_[i] = i < static_cast<size_t>(concurrency) ? 0.0 : -1.0;
  } else {
    for (size_t i = 0; i < arrival_.size(); ++i) arrival_[i] = requests[i].arrival_s;
    std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) { return arrival_[a] < arrival_[b]; });
  }
}

std::vector<size_t> ArrivalClock::arrived_by(double now) {
  std::vector<size_t> out;
  while (next_ < order_.size() && arrival_[order_[next_]] >= 0 && arrival_[order_[next_]] <= now) out.push_back(order_[next_++]);
  return out;
}

std::optional<double> ArrivalClock::next_arrival() const {
  if (next_ >= order_.size() || arrival_[order_[next_]] < 0) return std::nullopt;
  return arrival_[order_[next_]];
}

void ArrivalClock::completed(double now) {
  ++completed_;
  if (!closed_) return;
  const size_t release = static_cast<size_t>(concurrency_) + completed_ - 1;  // the client sends its next request
  if (release < arrival_.size()) arrival_[order_[release]] = now;
}

double ArrivalClock::first_arrival() const { return order_.empty() ? 0 : (closed_ ? 0 : arrival_[order_.front()]); }

}  // namespace rooftop
