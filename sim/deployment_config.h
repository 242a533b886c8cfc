// Typed configuration of how the model is deployed on the cluster (docs/design.md §2, §4).
//
// A deployment is either one colocated pool (prefill and decode on the same instances) or a
// disaggregated pair: a prefill pool whose instances compute prompts and hand the KV cache to a
// decode pool. A pool has `instances` identical model replicas of `ranks` devices each. The ranks
// of an instance form `pipeline_stages` stages of ranks / pipeline_stages consecutive ranks, each
// holding a contiguous run of layers. Within a stage, attention runs in attention_dp groups of
// attention_tp consecutive ranks (each group serves its own requests; its ranks split the
// heads), and the routed experts of every MoE layer split over moe_ep groups of moe_tp
// consecutive ranks (each group holds its experts, each rank a 1/moe_tp slice of every one):
// attention_dp × attention_tp = moe_ep × moe_tp = ranks / pipeline_stages. Pools occupy
// consecutive devices, prefill first.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "calibration/hardware_profile.h"
#include "models/layer_ops.h"
#include "models/model_spec.h"
#include "sim/overlap.h"
#include "sim/placement.h"
#include "sim/runtime.h"
#include "topology/all_to_all_algorithm.h"
#include "topology/fidelity.h"

namespace moesim::sim {

enum class PoolRole { kColocated, kPrefill, kDecode };
const char* to_string(PoolRole role);

struct BatchConfig {
  // Per attention-DP rank: one rank, or one attention TP group (whose ranks share its requests).
  int max_running_per_rank = 64;              // requests admitted at once
  std::int64_t token_budget_per_rank = 4096;  // tokens (decode + prefill chunk) per step
  int kv_block_tokens = 64;                   // paged KV cache: tokens per block
};

// How dispatch and combine travel (sim/moe_comm.h and topology/fidelity.h registries).
struct MoeCommConfig {
  // The all-to-all algorithm (direct, hierarchical: DeepEP normal, low-latency: DeepEP LL), or
  // none: `allgather-reducescatter` moves the tokens by AllGather + ReduceScatter (sim/moe_comm.h).
  const topology::AllToAllAlgorithm* all_to_all = &topology::direct_all_to_all();
  const topology::NetworkFidelity* fidelity = &topology::analytic_fidelity();  // analytic or flow
  // YAML `ll_intra_node: scale-up | network`: how DeepEP's low-latency kernels reach the ranks of
  // their own scale-up domain: over its links (default) or over RDMA like every other peer, as
  // they did before their NVLink support (May 2025) and do with NVLink traffic disabled, which
  // their hook-based overlap requires (topology::AllToAllOptions::network_only). Like DeepEP's
  // allow_nvlink_for_low_latency_mode, a property of the low-latency kernels: the other
  // algorithms never send a pair over the network inside a domain.
  bool ll_network_only = false;
  // The dispatch payload's format (models::payload_formats()): kModel takes the model's dtypes.
  models::PayloadFormat dispatch_payload = models::PayloadFormat::kModel;
  bool gather_scatter() const { return all_to_all == nullptr; }
  bool low_latency() const { return all_to_all != nullptr && all_to_all->low_latency(); }
  bool network_only() const { return ll_network_only && low_latency(); }
};

// KV cache tiers below HBM (docs/serving.md "KV cache tiers"): prefix-cache blocks evicted from a
// rank's HBM move to its host memory, and from there to a remote store shared by the pool; a hit
// in a lower tier is loaded back (host over PCIe, remote over the NIC) before the request starts.
// Sizes and rates are per rank; 0 capacity: no such tier.
struct KvTierConfig {
  double host_bytes = 0;          // host DRAM per rank for offloaded KV
  double host_bytes_per_s = 0;    // host-to-GPU rate per rank (PCIe); required with host_bytes
  double remote_bytes = 0;        // the pool's remote store, per rank of the pool (pooled)
  double remote_bytes_per_s = 0;  // store-to-GPU rate per rank; 0: the hardware's NIC rate
  bool enabled() const { return host_bytes > 0 || remote_bytes > 0; }
};

// Speculative decoding (sim/speculative.h): each decode step verifies `tokens` draft tokens per
// request after the newest one and emits 1 + the accepted ones.
enum class SpeculativeMethod { kNone, kMtp, kDraft };

struct SpeculativeConfig {
  SpeculativeMethod method = SpeculativeMethod::kNone;
  int tokens = 0;  // draft tokens proposed per request per step (k)
  // Acceptance probability of draft position i given that positions before it were accepted:
  // one value for every position, or one per position (k values).
  std::vector<double> acceptance;
  models::ModelSpec draft_model;  // method kDraft: the (dense) draft model
  bool enabled() const { return method != SpeculativeMethod::kNone && tokens > 0; }
};
const char* to_string(SpeculativeMethod method);

// Attention-FFN disaggregation (docs/serving.md "Attention-FFN disaggregation"; sim/afd_step.h):
// the first `attention_ranks` ranks of an instance run attention, hold the KV cache and route
// (attention dp x tp covers them); the other ranks hold the routed and shared experts (moe ep
// covers them). Every MoE layer sends each micro-batch's tokens from the attention ranks to the
// expert ranks and back (M2N, N2M), and `micro_batches` micro-batches take turns on the two
// sides so that both stay busy (MegaScale-Infer's ping-pong pipeline: Zhu et al. 2025,
// "MegaScale-Infer: Serving Mixture-of-Experts at Scale with Disaggregated Expert Parallelism").
struct AfdConfig {
  int attention_ranks = 0;  // 0: no disaggregation (every rank runs both halves)
  // A micro-batch's round trip through one layer is T_a + T_c + T_e + T_c, and a side is busy
  // m x T_f of it (T_a ~ T_e ~ T_f): the transfers hide while m >= 2 (1 + T_c / T_f), the
  // paper's condition. 3 meets it while a transfer takes at most half a side's compute.
  int micro_batches = 3;
  bool enabled() const { return attention_ranks > 0; }
};

struct PoolConfig {
  PoolRole role = PoolRole::kColocated;
  int instances = 1;
  int ranks = 8;            // per instance, all pipeline stages
  int pipeline_stages = 1;  // pp
  int attention_dp = 8;     // per stage
  int attention_tp = 1;
  int moe_ep = 8;  // per stage
  int moe_tp = 1;
  SpeculativeConfig speculative;
  BatchConfig batch;
  OverlapConfig overlap;
  PlacementConfig placement;  // expert placement, redundant slots, rebalancing
  MoeCommConfig comm;
  RuntimeConfig runtime;  // the serving engine around the kernels (sim/runtime.h)
  KvTierConfig kv_tiers;  // prefix-cache offload below HBM (entry pools with prefix caches)
  // The pool's own accelerator (`deployment.<pool>.hardware`: prefill on H800 servers, decode on
  // H20 servers); null: the scenario's. Its memory plan, cost model, power and links are its own.
  std::shared_ptr<const calibration::HardwareProfile> hardware;
  AfdConfig afd;  // attention-FFN disaggregation; off by default
  int stage_ranks() const { return ranks / pipeline_stages; }
  // The ranks attention DP x TP covers, and those MoE EP x TP covers: a stage's ranks each, or
  // the two sides of an attention-FFN disaggregated instance.
  int attention_ranks() const { return afd.enabled() ? afd.attention_ranks : stage_ranks(); }
  int expert_ranks() const { return afd.enabled() ? ranks - afd.attention_ranks : stage_ranks(); }
};

// The accelerator a pool runs on: its own, else `fallback` (the scenario's).
inline const calibration::HardwareProfile& pool_hardware(const PoolConfig& p,
                                                         const calibration::HardwareProfile& fallback) {
  return p.hardware ? *p.hardware : fallback;
}

inline PoolConfig with_role(PoolRole role) {
  PoolConfig p;
  p.role = role;
  return p;
}

// How requests are routed to the entry pool's instances and ranks (sim/request_router.h).
enum class RouterPolicy { kLeastLoaded, kRoundRobin, kPrefixAware };
struct RouterConfig {
  RouterPolicy policy = RouterPolicy::kLeastLoaded;
  // prefix-aware: weight of the prompt tokens a rank would prefill against the KV tokens it holds
  // (Dynamo's kv-overlap-score-weight, default 1.0: a token to prefill costs one token of load).
  double overlap_weight = 1.0;
};

struct DeploymentConfig {
  bool disaggregated = false;
  RouterConfig router;
  PoolConfig colocated;                                // when !disaggregated
  PoolConfig prefill = with_role(PoolRole::kPrefill);  // when disaggregated
  PoolConfig decode = with_role(PoolRole::kDecode);    // when disaggregated

  // The pools in device order.
  std::vector<PoolConfig> pools() const {
    if (disaggregated) return {prefill, decode};
    return {colocated};
  }
};

}  // namespace moesim::sim
