// Deployment: one colocated pool of one model instance laid out on the cluster.
//
// Rank r runs on device r. Attention is data-parallel on every rank (each rank serves its own
// requests); the routed experts of every MoE layer are split contiguously over the EP ranks
// (expert e on rank e / (experts / ep)). Construction checks that the degrees are consistent,
// that the pool fits the cluster and that each rank's memory holds weights, buffers and some KV
// cache; a violation throws DeploymentError with the reason (and the memory table for OOM).
#pragma once

#include <stdexcept>
#include <vector>

#include "calibration/hardware_profile.h"
#include "models/memory.h"
#include "models/model_spec.h"
#include "sim/deployment_config.h"
#include "topology/cluster.h"

namespace moesim::sim {

class DeploymentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Deployment {
 public:
  Deployment(const DeploymentConfig& config, const models::ModelSpec& model,
             const calibration::HardwareProfile& hw, const topology::Cluster& cluster);

  const PoolConfig& pool() const { return pool_; }
  int ranks() const { return pool_.ranks; }
  int ep() const { return pool_.moe_ep; }
  int experts_per_rank() const { return experts_per_rank_; }
  int expert_rank(int expert) const { return expert / experts_per_rank_; }
  const std::vector<int>& rank_devices() const { return rank_devices_; }
  const models::MemoryPlan& memory() const { return memory_; }

 private:
  PoolConfig pool_;
  int experts_per_rank_ = 0;
  std::vector<int> rank_devices_;
  models::MemoryPlan memory_;
};

}  // namespace moesim::sim
