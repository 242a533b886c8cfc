// Deployment: the pools of a deployment laid out on the cluster.
//
// Pools take consecutive devices in order (prefill, then decode; or the colocated pool);
// within a pool, instance i takes ranks [i·ranks, (i+1)·ranks) of the pool's devices, rank r of
// an instance on the r-th of them. The routed experts of every MoE layer (plus redundant slots)
// are placed over an instance's EP ranks by the pool's placement policy. Construction checks that
// the degrees are consistent, that the pools fit the cluster and that each rank's memory holds
// weights, buffers and some KV cache; a violation throws DeploymentError with the reason (and
// the memory table for an out-of-memory pool).
#pragma once

#include <stdexcept>
#include <string>
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

struct PoolLayout {
  PoolConfig config;
  int slots_per_rank = 0;  // expert slots (routed + redundant) per rank of every MoE layer
  models::MemoryPlan memory;
  std::vector<std::vector<int>> instance_devices;  // [instance][rank] -> cluster device
};

// One instance of a pool, as the step model sees it.
class InstanceLayout {
 public:
  InstanceLayout(const PoolLayout& pool, int instance) : pool_(&pool), instance_(instance) {}
  const PoolConfig& config() const { return pool_->config; }
  int instance() const { return instance_; }
  int ranks() const { return pool_->config.ranks; }
  int ep() const { return pool_->config.moe_ep; }
  int slots_per_rank() const { return pool_->slots_per_rank; }
  const std::vector<int>& rank_devices() const { return pool_->instance_devices[static_cast<std::size_t>(instance_)]; }

 private:
  const PoolLayout* pool_;
  int instance_;
};

class Deployment {
 public:
  Deployment(const DeploymentConfig& config, const models::ModelSpec& model, const calibration::HardwareProfile& hw,
             const topology::Cluster& cluster);

  const std::vector<PoolLayout>& pools() const { return pools_; }
  bool disaggregated() const { return disaggregated_; }
  int total_ranks() const;

 private:
  std::vector<PoolLayout> pools_;
  bool disaggregated_ = false;
};

}  // namespace moesim::sim
