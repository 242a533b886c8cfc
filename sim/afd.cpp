#include "sim/afd.h"

namespace moesim::sim {

std::string afd_split_problem(const PoolConfig& p) {
  const AfdConfig& a = p.afd;
  if (!a.enabled()) return "";
  if (a.attention_ranks >= p.ranks)
    return "attention_ranks " + std::to_string(a.attention_ranks) + " leaves none of the " + std::to_string(p.ranks) +
           " ranks for the experts";
  if (a.micro_batches < 1) return "micro_batches must be at least 1";
  return "";
}

std::string afd_problem(const PoolConfig& p, const models::ModelSpec& model) {
  const AfdConfig& a = p.afd;
  if (!a.enabled()) return "";
  if (auto why = afd_split_problem(p); !why.empty()) return why;
  if (model.routed_experts == 0) return model.name + " has no routed experts to disaggregate";
  if (p.pipeline_stages != 1) return "pipeline stages are not modelled with attention-FFN disaggregation";
  if (p.attention_tp != 1) return "attention tp must be 1 (each attention rank serves its own requests)";
  if (p.moe_tp != 1) return "moe tp must be 1 (each expert rank holds whole experts)";
  if (p.speculative.enabled()) return "speculative decoding is not modelled with attention-FFN disaggregation";
  if (p.overlap.scheme != OverlapScheme::kNone)
    return "the ping-pong pipeline replaces the overlap schemes: leave overlap at none";
  if (p.comm.gather_scatter() || p.comm.all_to_all->forwards())
    return "the M2N transfers go rank to rank: moe comm must be direct or low-latency";
  if (p.placement.rebalance_interval_s > 0) return "EPLB rebalancing is not modelled with attention-FFN disaggregation";
  return "";
}

}  // namespace moesim::sim
