// A DeepSeek-V3 pool on H800 nodes of 8 GPUs, one EP rank per GPU, with its LayerRouting: the
// setting of tests of one MoE layer's routing (shared_law_test) and exchange (moe_exchange_test).
#pragma once

#include <memory>

#include "calibration/hardware_profile.h"
#include "models/presets.h"
#include "sim/deployment.h"
#include "sim/layer_routing.h"
#include "sim/moe_comm.h"
#include "workloads/routing_model.h"

namespace moesim::sim::test {

struct LayerRoutingOptions {
  const char* algorithm = "direct";  // the all-to-all kernels (sim/moe_comm.h)
  int nodes = 2;                     // DeepSeek-V3's weights need at least 16 H800
  workloads::RoutingModelKind routing = workloads::RoutingModelKind::kUniform;
  PlacementPolicy placement = PlacementPolicy::kContiguous;  // EPLB: oracle statistics, rebalancing on
  int redundant = 0;                                         // EPLB's redundant experts
};

struct LayerRoutingFixture {
  explicit LayerRoutingFixture(const LayerRoutingOptions& o = {}) : cluster(config(o.nodes)) {
    model = *models::find_model_preset("deepseek-v3");
    hw = *calibration::find_hardware_preset("h800");
    DeploymentConfig d;
    d.colocated.ranks = d.colocated.attention_dp = d.colocated.moe_ep = o.nodes * 8;
    d.colocated.comm.all_to_all = find_moe_comm(o.algorithm);
    d.colocated.placement.policy = o.placement;
    d.colocated.placement.redundant = o.redundant;
    if (d.colocated.placement.eplb()) {
      d.colocated.placement.statistics = EplbStatistics::kOracle;
      d.colocated.placement.rebalance_interval_s = 1;  // LayerRouting::observe counts loads
    }
    deployment = std::make_unique<Deployment>(d, model, hw, cluster);
    layout = std::make_unique<InstanceLayout>(deployment->pools()[0], 0);
    workloads::RoutingConfig rc;
    rc.model = o.routing;
    routing_model = workloads::make_routing_model(rc, workloads::routing_shape(model), 11);
    routing = std::make_unique<LayerRouting>(model, layout->moe_view(), *routing_model, cluster);
  }
  static topology::ClusterConfig config(int nodes) {
    topology::ClusterConfig c;
    c.nodes = nodes;
    return c;
  }

  models::ModelSpec model;
  calibration::HardwareProfile hw;
  topology::Cluster cluster;
  std::unique_ptr<Deployment> deployment;
  std::unique_ptr<InstanceLayout> layout;
  std::unique_ptr<workloads::RoutingModel> routing_model;
  std::unique_ptr<LayerRouting> routing;
};

}  // namespace moesim::sim::test
