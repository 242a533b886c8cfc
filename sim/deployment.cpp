#include "sim/deployment.h"

#include <algorithm>

namespace moesim::sim {

const char* to_string(PoolRole role) {
  switch (role) {
    case PoolRole::kColocated: return "colocated";
    case PoolRole::kPrefill: return "prefill";
    case PoolRole::kDecode: return "decode";
  }
  return "?";
}

namespace {

PoolLayout layout_pool(const PoolConfig& p, const models::ModelSpec& model, const calibration::HardwareProfile& hw) {
  const std::string name = std::string(to_string(p.role)) + " pool: ";
  if (p.ranks < 1 || p.instances < 1) throw DeploymentError(name + "needs at least one instance of one rank");
  if (p.attention_dp * p.attention_tp != p.ranks)
    throw DeploymentError(name + "attention dp " + std::to_string(p.attention_dp) + " x tp " +
                          std::to_string(p.attention_tp) + " != " + std::to_string(p.ranks) + " ranks");
  if (p.attention_tp != 1) throw DeploymentError(name + "only attention tp 1 is modelled so far");
  if (p.moe_ep != p.ranks) throw DeploymentError(name + "only EP over all ranks of the pool is modelled so far");
  PoolLayout pool;
  pool.config = p;
  if (model.routed_experts > 0) {
    PlacementShape shape;
    shape.experts = model.routed_experts;
    shape.ep = p.moe_ep;
    shape.redundant = p.placement.redundant;
    shape.expert_groups = std::max(1, model.expert_groups);
    const int slots = model.routed_experts + p.placement.redundant;
    if (slots % p.moe_ep != 0)
      throw DeploymentError(name + std::to_string(slots) + " expert slots (" + std::to_string(model.routed_experts) +
                            " + " + std::to_string(p.placement.redundant) + " redundant) do not divide over ep " +
                            std::to_string(p.moe_ep));
    try {
      validate_placement(p.placement, shape);
    } catch (const std::invalid_argument& e) {
      throw DeploymentError(name + e.what());
    }
    pool.slots_per_rank = slots / p.moe_ep;
  }
  models::MemoryOptions mem;
  mem.ep = p.moe_ep;
  mem.redundant_experts = p.placement.redundant;
  mem.attention_tp = p.attention_tp;
  mem.token_budget_per_rank = p.batch.token_budget_per_rank;
  mem.capacity_bytes = hw.hbm_bytes;
  pool.memory = models::plan_rank_memory(model, mem);
  if (!pool.memory.fits())
    throw DeploymentError("out of memory: " + name + model.name + " on " + std::to_string(p.ranks) + " x " + hw.name +
                          " (ep " + std::to_string(p.moe_ep) + ") leaves no room for the KV cache:\n" +
                          pool.memory.table());
  return pool;
}

}  // namespace

Deployment::Deployment(const DeploymentConfig& config, const models::ModelSpec& model,
                       const calibration::HardwareProfile& hw, const topology::Cluster& cluster)
    : disaggregated_(config.disaggregated) {
  int next_device = 0;
  for (const PoolConfig& p : config.pools()) {
    PoolLayout pool = layout_pool(p, model, hw);
    const int needed = p.instances * p.ranks;
    if (next_device + needed > cluster.num_devices())
      throw DeploymentError("the pools need " + std::to_string(next_device + needed) + " devices; the cluster has " +
                            std::to_string(cluster.num_devices()));
    for (int i = 0; i < p.instances; ++i) {
      std::vector<int> devices(static_cast<std::size_t>(p.ranks));
      for (int r = 0; r < p.ranks; ++r) devices[static_cast<std::size_t>(r)] = next_device++;
      pool.instance_devices.push_back(std::move(devices));
    }
    pools_.push_back(std::move(pool));
  }
}

int Deployment::total_ranks() const {
  int n = 0;
  for (const auto& p : pools_) n += p.config.instances * p.config.ranks;
  return n;
}

}  // namespace moesim::sim
