// The scheduler on hand-worked traces: admission within the token budget and the sequence cap, chunked prefill
// mixed with decodes, page booking, preemption by recompute and what the recompute feeds.
#include <catch2/catch.hpp>

#include "base/errors.h"
#include "base/scheduler.h"

using namespace rooftop;

namespace {
// 1 byte per page of 4 tokens: footprint(t) = ceil(t / 4).
std::function<double(int64_t)> pages_of_4() {
  return [](int64_t tokens) { return static_cast<double>((tokens + 3) / 4); };
}
struct Plan {
  size_t id;
  int64_t tokens, context;
  bool restart;
};
void check_plan(const std::vector<ScheduledSlice>& got, const std::vector<Plan>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].id == want[i].id);
    CHECK(got[i].new_tokens == want[i].tokens);
    CHECK(got[i].context_before == want[i].context);
    CHECK(got[i].restart == want[i].restart);
  }
}
}  // namespace

TEST_CASE("admission, chunked prefill beside decodes, and the sequence cap", "[base][scheduler]") {
  // Budget 10 tokens, 2 sequences: A (prompt 6, 3 out) and B (prompt 9, 2 out) and C (prompt 3, 1 out).
  Scheduler s({2, 10, 4, 1000}, pages_of_4());
  s.arrive(0, 6, 3);
  s.arrive(1, 9, 2);
  s.arrive(2, 3, 1);
  // Step 1: A's whole prompt (6), then B's first 4 tokens (the budget left); C waits (cap of 2).
  check_plan(s.plan(), {{0, 6, 0, true}, {1, 4, 0, true}});
  auto out = s.finish_step();
  REQUIRE(out.size() == 1);  // A's first token; B's chunk gives none
  CHECK((out[0].id == 0 && out[0].first && !out[0].finished));
  // Pages: A booked ceil(6/4) = 2, B its whole prompt ceil(9/4) = 3.
  CHECK(s.used_bytes() == 5);
  // Step 2: A decodes its token (context 6), B's last 5 prompt tokens.
  check_plan(s.plan(), {{0, 1, 6, false}, {1, 5, 4, false}});
  out = s.finish_step();
  REQUIRE(out.size() == 2);
  CHECK((out[0].id == 0 && !out[0].first && !out[0].finished));
  CHECK((out[1].id == 1 && out[1].first && !out[1].finished));
  // Step 3: both decode; A's third token ends it.
  check_plan(s.plan(), {{0, 1, 7, false}, {1, 1, 9, false}});
  out = s.finish_step();
  REQUIRE(out.size() == 2);
  CHECK((out[0].finished && out[1].finished));  // B: 2 outputs
  CHECK(s.used_bytes() == 0);
  // Step 4: C alone.
  check_plan(s.plan(), {{2, 3, 0, true}});
  out = s.finish_step();
  CHECK((out.size() == 1 && out[0].first && out[0].finished));
  CHECK(s.idle());
}

TEST_CASE("a full page budget preempts the newest; it recomputes its prompt and its tokens", "[base][scheduler]") {
  // 4 bytes = 4 pages of 4 tokens. A (prompt 4, 8 out) and B (prompt 4, 8 out): 1 page each at admission.
  Scheduler s({8, 100, 4, 4}, pages_of_4());
  s.arrive(0, 4, 8);
  s.arrive(1, 4, 8);
  check_plan(s.plan(), {{0, 4, 0, true}, {1, 4, 0, true}});
  CHECK(s.finish_step().size() == 2);  // first tokens; caches hold 4 each, 2 pages booked
  // Steps 2-5: each decode at context 4..7 books a second page at context 4 (4 pages in all).
  for (int64_t c = 4; c < 8; ++c) {
    check_plan(s.plan(), {{0, 1, c, false}, {1, 1, c, false}});
    CHECK(s.finish_step().size() == 2);
  }
  CHECK(s.used_bytes() == 4);
  // Step 6: A at context 8 needs a third page: none left, so B (the newest) is preempted and A proceeds.
  check_plan(s.plan(), {{0, 1, 8, false}});
  REQUIRE(s.preempted() == std::vector<size_t>{1});
  CHECK(s.preemptions() == 1);
  CHECK(s.used_bytes() == 3);
  s.finish_step();
  // A ends with its 8th token at context 10 (3 pages); B waits meanwhile (no admissions beside a preemption,
  // then its 9 tokens' 3 pages do not fit beside A's 3).
  for (int64_t c = 9; c < 11; ++c) {
    check_plan(s.plan(), {{0, 1, c, false}});
    const auto out = s.finish_step();
    CHECK(out.back().finished == (c == 10));
  }
  // B comes back: it had generated 5 tokens, so it feeds 4 + 5 = 9 tokens from an empty cache, and that pass
  // gives its 6th token.
  check_plan(s.plan(), {{1, 9, 0, true}});
  const auto out = s.finish_step();
  REQUIRE(out.size() == 1);
  CHECK((!out[0].first && !out[0].finished));
  check_plan(s.plan(), {{1, 1, 9, false}});
}

TEST_CASE("bad requests and limits get one line", "[base][scheduler]") {
  CHECK_THROWS_AS(Scheduler({0, 10, 4, 10}, pages_of_4()), InputError);
  CHECK_THROWS_AS(Scheduler({1, 10, 4, 0}, pages_of_4()), InputError);
  Scheduler s({1, 10, 4, 2}, pages_of_4());
  CHECK_THROWS_AS(s.arrive(0, 0, 4), InputError);
  CHECK_THROWS_AS(s.arrive(0, 8, 1), InputError);  // 9 tokens need 3 pages of the 2
  CHECK(s.idle());
}

TEST_CASE("cancel frees a running sequence's pages and removes a waiting one", "[base][scheduler]") {
  Scheduler s({1, 100, 4, 10}, pages_of_4());
  s.arrive(0, 8, 4);
  s.arrive(1, 4, 4);
  check_plan(s.plan(), {{0, 8, 0, true}});  // the cap of 1 sequence: B waits
  s.finish_step();
  CHECK(s.used_bytes() == 2);
  CHECK(s.cancel(0));   // running: its 2 pages come back
  CHECK(s.used_bytes() == 0);
  CHECK_FALSE(s.cancel(0));  // gone already
  check_plan(s.plan(), {{1, 4, 0, true}});
  CHECK_THROWS_AS(s.cancel(1), InternalError);  // inside a step
  s.finish_step();
  s.arrive(2, 4, 4);
  CHECK_FALSE(s.cancel(2));  // waiting (B holds the one sequence)
  CHECK(s.waiting() == 0);
}

TEST_CASE("prefix caching: the second request skips the cached prefix's whole pages, shared once", "[base][scheduler]") {
  // Pages of 4 tokens, 1 byte each. A and B share prefix 7 of 10 tokens (2 whole pages: 8 tokens) in 13-token
  // prompts; C shares it too but its prompt is the prefix plus 1 token.
  Scheduler s({8, 100, 4, 100}, pages_of_4());
  s.arrive(0, 13, 2, 7, 10);
  check_plan(s.plan(), {{0, 13, 0, true}});
  s.finish_step();  // A prefilled its prefix: pages of its first 8 tokens move to the cache (A's own: 2 of 4)
  CHECK(s.used_bytes() == 4);
  s.arrive(1, 13, 2, 7, 10);
  // B skips 8 tokens: it feeds 5 from context 8, beside A's decode. Its own pages: ceil(13/4) - 2 = 2.
  check_plan(s.plan(), {{0, 1, 13, false}, {1, 5, 8, true}});
  CHECK(s.used_bytes() == 6);
  CHECK(s.prefix_hit_tokens() == 8);
  s.finish_step();  // A finished: its own 2 pages freed; the cache stays (B uses it)
  CHECK(s.used_bytes() == 4);
  s.arrive(2, 9, 1, 7, 9);
  // C: 9 tokens = the prefix's 2 pages + 1; skips 8 and feeds 1 (the last prompt token is always fed).
  check_plan(s.plan(), {{1, 1, 13, false}, {2, 1, 8, true}});
  CHECK(s.prefix_hit_tokens() == 16);
  s.finish_step();
  // A request whose prompt is exactly the 8 cached tokens feeds its last page again (4 tokens from context 4).
  s.arrive(3, 8, 1, 7, 8);
  check_plan(s.plan(), {{3, 4, 4, true}});
  s.finish_step();
  CHECK(s.idle());
  CHECK(s.used_bytes() == 2);  // the cached prefix alone
  // Memory runs out: the unused prefix is evicted to admit a request that needs every page.
  Scheduler small({8, 100, 4, 4}, pages_of_4());
  small.arrive(0, 8, 1, 1, 8);
  small.plan();
  small.finish_step();
  CHECK(small.used_bytes() == 2);  // 2 cached pages
  small.arrive(1, 15, 1);
  check_plan(small.plan(), {{1, 15, 0, true}});
  CHECK(small.used_bytes() == 4);
  // A shared prefix longer than the prompt is refused.
  CHECK_THROWS_AS(small.arrive(2, 4, 1, 1, 5), InputError);
}

TEST_CASE("a prompt that is all cached prefix, sized to the whole budget, still finishes (review finding)", "[base][scheduler]") {
  // 6 pages of 4 tokens. A caches a 16-token prefix (4 pages); B's prompt is that prefix and it needs 24 tokens (6
  // pages) in all: with the prefix kept whole it cannot grow, preempts itself, comes back without the prefix.
  Scheduler s({4, 100, 4, 6}, pages_of_4());
  s.arrive(0, 16, 1, 3, 16);
  s.plan();
  s.finish_step();
  CHECK(s.used_bytes() == 4);
  s.arrive(1, 16, 8, 3, 16);
  int64_t tokens = 0, steps = 0;
  while (!s.idle() && steps < 100) {
    s.plan();
    for (const auto& o : s.finish_step()) tokens += o.id == 1 ? 1 : 0;
    ++steps;
  }
  CHECK(s.idle());
  CHECK(tokens == 8);
  CHECK(s.preemptions() >= 1);
}

TEST_CASE("a prefilled request (disaggregated decode) books its prompt's pages and decodes from its first step", "[base][scheduler]") {
  // Budget 10 tokens, pages of 4 tokens at 1 byte, 3 bytes of pages: A brings 9 prompt tokens' KV and wants 3
  // outputs, the first of which it brought.
  Scheduler s({4, 10, 4, 3}, pages_of_4());
  s.arrive(0, 9, 3, -1, 0, /*prefilled=*/true);
  // Step 1: one decode token after the 9 brought (no prefill); pages for 10 tokens: ceil(10/4) = 3.
  check_plan(s.plan(), {{0, 1, 9, true}});
  CHECK(s.used_bytes() == 3);
  auto out = s.finish_step();
  REQUIRE(out.size() == 1);
  CHECK((!out[0].first && !out[0].finished));  // its second token: the first came with it
  // Step 2: its third and last token, at context 10.
  check_plan(s.plan(), {{0, 1, 10, false}});
  out = s.finish_step();
  CHECK((out.size() == 1 && out[0].finished));
  CHECK(s.idle());
  CHECK(s.used_bytes() == 0);
  // Its output must leave a token to decode, and it brings no shared prefix.
  CHECK_THROWS_AS(s.arrive(1, 9, 1, -1, 0, true), InputError);
  CHECK_THROWS_AS(s.arrive(1, 9, 3, 7, 4, true), InputError);
}
