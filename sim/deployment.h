// Deployment: the pools of a deployment laid out on the cluster.
//
// Pools take consecutive devices in order (prefill, then decode; or the colocated pool);
// within a pool, instance i takes ranks [i·ranks, (i+1)·ranks) of the pool's devices, rank r of
// an instance on the r-th of them. With pipeline stages, stage s of an instance is its ranks
// [s·ranks/pp, (s+1)·ranks/pp) and holds a contiguous run of layers: ⌊layers/pp⌋ each, the
// remainder going one apiece to the stages just before the last (which also holds the LM head),
// as vLLM splits them. Within a stage, attention TP groups and MoE TP groups are consecutive
// ranks (so a TP group of up to 8 stays inside an HGX node). The routed experts of every MoE
// layer (plus redundant slots) are placed over a stage's EP groups by the pool's placement
// policy. Construction checks each pool against the rules of sim/deployment_rules.h (degrees
// consistent and dividing the model, placement, AFD, speculative decoding), that the pools fit
// the cluster and that each rank's memory holds weights, buffers and some KV cache; a violation
// throws DeploymentError with the reason (and the memory table for an out-of-memory pool). A pool may run on hardware
// of its own (PoolConfig::hardware), on whole nodes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "calibration/hardware_profile.h"
#include "models/memory.h"
#include "models/model_spec.h"
#include "sim/deployment_config.h"
#include "sim/deployment_error.h"
#include "topology/cluster.h"

namespace moesim::sim {

struct PoolLayout {
  PoolConfig config;
  calibration::HardwareProfile hardware;  // what its ranks run on (pool_hardware())
  int slots_per_rank = 0;                 // expert slots (routed + redundant) per EP group of every MoE layer
  models::MemoryPlan memory;              // per rank, of the stage with the least room for KV cache
                                          // (with AFD: of an attention rank)
  models::MemoryPlan expert_memory;       // AFD only: per expert rank
  // The weights the pool's ranks hold, per rank on average (every rank's plan alike unless AFD
  // splits attention and experts): what a step streams, for its power (sim/energy.h).
  models::MemoryPlan mean_weights() const;
  std::vector<std::vector<int>> instance_devices;  // [instance][rank] -> cluster device, stage-major
  std::vector<std::pair<int, int>> stage_layers;   // [stage] -> layers [first, end)
};

// Pools on hardware of their own (PoolConfig::hardware): a scale-up domain holds one kind of
// device, so every node the pools use must hold devices of one profile only. Returns why not
// ("" when they do), e.g. when a decode pool on H20 would start in the middle of an H800 node.
std::string pool_hardware_problem(const DeploymentConfig& config, const calibration::HardwareProfile& fallback,
                                  int devices_per_node);
// The nodes of the pools whose hardware is not `fallback`, with that hardware's ports: what a
// preset fabric built from the device's ports (hgx, xgmi, hccs, generic) gives those nodes'
// links. Nodes are whole (pool_hardware_problem() is "").
std::vector<topology::ClusterConfig::NodeGroup> pool_node_groups(const DeploymentConfig& config,
                                                                 const calibration::HardwareProfile& fallback,
                                                                 int devices_per_node);

// The layers of each of `stages` pipeline stages (see the header comment).
std::vector<std::pair<int, int>> split_layers(int layers, int stages);

// One pipeline stage of one instance of a pool, as the step model sees it (the whole instance
// without pipeline parallelism).
class InstanceLayout {
 public:
  InstanceLayout(const PoolLayout& pool, int instance, int stage = 0);
  const PoolConfig& config() const { return pool_->config; }
  int instance() const { return instance_; }
  int stage() const { return stage_; }
  int stages() const { return pool_->config.pipeline_stages; }
  int ranks() const { return static_cast<int>(devices_.size()); }  // of this stage
  int ep() const { return ep_; }
  int slots_per_rank() const { return pool_->slots_per_rank; }
  int attention_dp() const { return pool_->config.attention_dp; }
  int attention_tp() const { return pool_->config.attention_tp; }
  int moe_tp() const { return moe_tp_; }
  const std::vector<int>& rank_devices() const { return devices_; }
  int first_layer() const { return first_layer_; }
  int end_layer() const { return end_layer_; }
  bool last_stage() const { return last_stage_; }
  // What the expert routing sees: one rank per EP group (its first device). The layout itself
  // without MoE TP.
  InstanceLayout moe_view() const;
  // The same ranks running layers [first, end) of another model (a speculative draft module),
  // as a last stage (with the LM head).
  InstanceLayout with_layers(int first, int end) const;

 private:
  const PoolLayout* pool_;
  int instance_;
  int stage_;
  int ep_;
  int moe_tp_;
  int first_layer_, end_layer_;
  bool last_stage_;
  std::vector<int> devices_;
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
