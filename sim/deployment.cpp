#include "sim/deployment.h"

#include <string>

namespace moesim::sim {

Deployment::Deployment(const DeploymentConfig& config, const models::ModelSpec& model,
                       const calibration::HardwareProfile& hw, const topology::Cluster& cluster)
    : pool_(config.colocated) {
  const auto& p = pool_;
  if (p.ranks < 1) throw DeploymentError("the pool needs at least one rank");
  if (p.attention_dp * p.attention_tp != p.ranks)
    throw DeploymentError("attention dp " + std::to_string(p.attention_dp) + " x tp " +
                          std::to_string(p.attention_tp) + " != " + std::to_string(p.ranks) + " ranks");
  if (p.attention_tp != 1) throw DeploymentError("only attention tp 1 is modelled so far");
  if (p.moe_ep != p.ranks) throw DeploymentError("only EP over all ranks of the pool is modelled so far");
  if (p.ranks > cluster.num_devices())
    throw DeploymentError(std::to_string(p.ranks) + " ranks do not fit on a cluster of " +
                          std::to_string(cluster.num_devices()) + " devices");
  if (model.routed_experts > 0) {
    if (model.routed_experts % p.moe_ep != 0)
      throw DeploymentError(std::to_string(model.routed_experts) + " routed experts do not divide over ep " +
                            std::to_string(p.moe_ep));
    experts_per_rank_ = model.routed_experts / p.moe_ep;
  }
  rank_devices_.resize(static_cast<std::size_t>(p.ranks));
  for (int r = 0; r < p.ranks; ++r) rank_devices_[static_cast<std::size_t>(r)] = r;

  models::MemoryOptions mem;
  mem.ep = p.moe_ep;
  mem.attention_tp = p.attention_tp;
  mem.token_budget_per_rank = p.batch.token_budget_per_rank;
  mem.capacity_bytes = hw.hbm_bytes;
  memory_ = models::plan_rank_memory(model, mem);
  if (!memory_.fits())
    throw DeploymentError("out of memory: " + model.name + " on " + std::to_string(p.ranks) + " x " + hw.name +
                          " (ep " + std::to_string(p.moe_ep) + ") leaves no room for the KV cache:\n" +
                          memory_.table());
}

}  // namespace moesim::sim
