// RouteMemo: keeps a few draws of each MoE layer's routing, with what they cost, and replays them
// (RoutingConfig::reuse_draws, docs/scenario-reference.md "routing").
//
// A layer's routing draw, its all-to-all and its grouped GEMM cost the same whenever the law of
// the draw and the tokens each rank routes are the same: steps of a steady decode batch repeat
// them for as long as no request joins or leaves, and a single GPU's batch sizes repeat all run
// long. The memo keys each draw by (MoE layer, law version, tokens per rank) — the law version
// changes whenever the layer's popularity or placement does (LayerRouting::law_version). For each
// key it keeps the first `draws` draws made afresh; once it holds them, a draw of that key is one
// of them chosen uniformly at random, independently per layer and step.
//
// Shared across layers (RoutingConfig::share_draws): MoE layers whose draws have one law up to
// relabelling each rank's slots (sim/law_form.h: uniform routing on one placement, or EPLB placing
// popularities that permute one another, as zipf's layers do) keep one pool per tokens per rank
// instead of one each (LayerRouting::shared_law), in canonical slot order, each layer reading its
// own expert counts from a draw (RouteOutcome::canonical_slots). The error of a
// pool's mean is then common to the L layers that read it, where L pools of their own average it
// out, so a shared pool keeps draws x ceil(sqrt(L)) draws (pool()). For a layer cost of
// coefficient of variation cv, the relative error of a step's mean MoE time is then
// cv / sqrt(draws x ceil(sqrt(L))), against cv / sqrt(draws x L) with a pool per layer, and a key
// needs L / ceil(sqrt(L)) times fewer fresh draws to fill (DeepSeek-V3, 58 layers: 7x). Once
// full, a shared pool also replaces one of its draws, chosen at random, with a fresh one every L
// reads on average (about once per step and micro-batch): its draws stay i.i.d. draws of the law,
// and over a run the replays come from many more draws than the pool holds at any time.
//
// What this keeps exactly: each step's draw of each layer has the law of a fresh draw (a uniform
// choice among i.i.d. draws is itself a draw of their law), so every expectation over steps — mean
// step time, throughput, the mean per-layer time split, mean expert loads — is unbiased. What it
// changes: draws of one key are no longer independent between steps (two steps may replay the
// same draw), so quantities averaged over many steps fluctuate a little more, as if over fewer
// steps. tests/sim/route_memo_test.cpp compares both on the figures users read.
//
// Memory: at most kKeysPerLayer keys per layer (least recently used evicted), each with `draws`
// outcomes of O(ranks + slots) numbers; shared, the keys of a law sit with its first layer's.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/moe_exchange.h"
#include "workloads/rng.h"

namespace moesim::sim {

// What route() derives from one draw (sim/step_model.cpp): everything needed to replay it.
struct RouteOutcome {
  ExchangeTimes exchange;
  ExchangeRecord links;                                              // the exchange's link loads
  std::vector<double> gemm_ns;                                       // per rank: expert GEMM
  std::vector<double> dispatch_recv, combine_send;                   // per rank: low-latency SM phases (else empty)
  double gemm_max = 0, dispatch_recv_max = 0, combine_send_max = 0;  // the slowest rank's of each
  std::vector<std::int64_t> expert_counts;                           // the draw's pairs per expert (a layer's own pool)
  std::vector<std::int64_t> canonical_slots;  // per slot, in its law's canonical order (shared pools)
  std::vector<std::int64_t> rank_pairs;       // per rank: the pairs it receives
  std::int64_t total_pairs = 0, total_received = 0;
};

class RouteMemo {
 public:
  // Keys kept per MoE layer (two micro-batches, and the batch sizes a run moves between).
  static constexpr std::size_t kKeysPerLayer = 8;

  // The law a draw is kept under: its keys sit with MoE layer `layer`, `version` names the law's
  // content, and `layers` MoE layers read its pool (1 for a layer's own).
  struct Law {
    int layer = 0;
    std::uint64_t version = 0;
    int layers = 1;
  };

  // `draws` 0: off (every draw is fresh).
  RouteMemo(int draws, int moe_layers);

  bool enabled() const { return draws_ > 0; }
  // Draws kept for a law that `layers` layers read: draws x ceil(sqrt(layers)).
  static std::size_t pool(int draws, int layers);
  // The outcome to replay for this law and tokens, chosen with `rng`, or null when a fresh draw is
  // to be made: then the caller fills the outcome keep() returns next.
  RouteOutcome* find(const Law& law, std::span<const std::int64_t> tokens, workloads::Rng& rng) {
    return find(law, tokens, fingerprint(tokens), rng);
  }
  // The same with the tokens' fingerprint() given: a caller that asks for the same tokens in many
  // layers computes it once. Keys are compared by fingerprint first, then in full.
  RouteOutcome* find(const Law& law, std::span<const std::int64_t> tokens, std::uint64_t tokens_fingerprint,
                     workloads::Rng& rng);
  static std::uint64_t fingerprint(std::span<const std::int64_t> tokens);
  // The outcome to fill with the fresh draw of the key the last find() returned null for.
  RouteOutcome& keep();

  // Every outcome the memo holds storage for, kept or left from an evicted key.
  template <typename F>
  void for_each_outcome(F&& f) {
    for (auto& keys : layers_)
      for (auto& k : keys)
        for (auto& o : k.outcomes) f(o);
  }

  std::int64_t hits() const { return hits_; }
  std::int64_t misses() const { return misses_; }

 private:
  struct Key {
    std::uint64_t version = 0;
    std::vector<std::int64_t> tokens;
    std::uint64_t fingerprint = 0;       // of tokens
    std::vector<RouteOutcome> outcomes;  // the first `filled` are the key's (the rest: storage kept)
    std::size_t filled = 0;
    std::uint64_t last_use = 0;
  };
  int draws_;
  std::vector<std::vector<Key>> layers_;  // [MoE layer] its keys
  Key* pending_ = nullptr;                // the key of the last find() that returned null ...
  std::size_t pending_slot_ = 0;          // ... and which of its outcomes keep() hands out
  std::uint64_t clock_ = 0;
  std::int64_t hits_ = 0, misses_ = 0;
};

}  // namespace moesim::sim
