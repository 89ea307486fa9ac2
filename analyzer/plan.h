// rooftop plan: the cheapest deployments that serve a request rate within p99 TTFT and TPOT targets, each
// checked by simulating it (serving.h).
//
// The search, per chip:
// - aggregated serving: replicas of tp x pp devices that each prefill and decode, over the tensor and
//   pipeline degrees, the batch cap (max sequences per step) and the prefill chunk (tokens per step);
// - disaggregated serving: a prefill pool and a decode pool, each of its own tensor degree and replica count;
//   a request's KV cache moves from one to the other over the chip's scale-out link (else its scale-up link).
// Pipeline stages run `pp` micro-batches at once, each with its own scheduler (vLLM's virtual engines): a
// replica of pp stages is simulated as one of them, at rate / (replicas x pp), with 1/pp of each device's KV
// pages, each step passing every stage in turn (StepCost with pp).
// The fewest replicas of each shape that meet both targets come from bisection (more replicas never hurt);
// a setting that cannot beat its family's best so far is rejected with one simulation.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/serving.h"

namespace rooftop {

struct PlanOptions {
  double rate = 1;  // requests per second
  int64_t prompt = 1024, output = 256;
  double slo_ttft_p99_s = 1, slo_tpot_p99_s = 0.1;
  int64_t max_devices = 64;
  int64_t requests = 200;  // simulated per check
  uint64_t seed = 1;
  int64_t block_tokens = 16;
  std::vector<int64_t> tp = {1, 2, 4, 8}, pp = {1, 2, 4, 8};
  std::vector<int64_t> max_seqs;       // batch caps tried; empty: the runtime's default on the chip, 16, 64, 256
  std::vector<int64_t> token_budgets;  // prefill chunks tried; empty: the runtime's default, 512, 2048
  bool disaggregation = true;          // also search prefill/decode pools
  unsigned threads = 0;                // chips searched at once; 0: the machine's cores
};

// One pool of identical replicas: each tp x pp devices with its scheduler limits.
struct PoolShape {
  int64_t tp = 1, pp = 1, max_seqs = 0, token_budget = 0, replicas = 0;
  int64_t devices() const { return tp * pp * replicas; }
};

// A deployment. Aggregated: `serve` holds every replica. Disaggregated: `serve` is the prefill pool and
// `decode` the decode pool.
struct PlanCandidate {
  std::string hw;
  bool disaggregated = false;
  PoolShape serve, decode;
  int64_t devices = 0;
  double ttft_p99_s = 0, tpot_p99_s = 0;  // disaggregated: TTFT of the prefill pool plus the KV transfer
  double kv_transfer_s = 0;               // disaggregated: one prompt's KV cache between the pools
  double output_tokens_per_s_per_device = 0;
  double usd_per_hour = 0, usd_per_mtok_output = 0, joules_per_output_token = 0;  // 0: no price or power on the card
  bool pareto = false;  // no other deployment has both more output tokens per second per device and a lower TPOT p99
  std::string family() const;  // "h100-sxm tp2 pp1", "h100-sxm disaggregated prefill tp1 decode tp2"
};

// A family (chip, mode and parallel shape) with no deployment that meets the targets within max_devices.
struct PlanRejection {
  std::string family;
  std::string reason;  // "memory", "TTFT", "TPOT" or "devices" (each pool meets its target, together too many)
  std::string detail;  // one line
  double miss = 0;     // TTFT/TPOT: the p99 over its target at the most devices tried, nearest setting (> 1)
  PlanCandidate nearest;  // TTFT/TPOT: that deployment
};

struct PlanResult {
  std::vector<PlanCandidate> feasible;  // the cheapest of each family that meets both targets, by $/hour then devices
  std::vector<PlanRejection> rejected;  // by miss, nearest first
  int64_t configurations = 0;           // deployments decided: every replica count of every setting tried
  int64_t simulations = 0;              // of them, simulated (the rest follow from bisection or a bound)
};

PlanResult plan_deployments(const ModelSpec& m, const PrecisionPlan& p, const std::vector<ChipSpec>& chips,
                            const RuntimeProfile& profile, const PlanOptions& o);

}  // namespace rooftop
