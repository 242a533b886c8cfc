// Independent check of the low-latency all-to-all against DeepEP's published kernel table
// (deepseek-ai/DeepEP docs/legacy.md, "Low-latency kernels with pure RDMA": H800, one 400 Gb/s
// ConnectX-7 per GPU, 128 tokens per rank, hidden 7168, top-8 of 256 experts, FP8 dispatch,
// BF16 combine). Nothing is fitted to it (the links are fitted to DeepEP's normal-mode table,
// docs/topology.md); the test prints the error of the modelled kernel — send kernel,
// transfer, receive kernel, as DeepEP's test times a kernel without the receive hook — and only
// guards against drift.
//
// The table's EP8 dispatch moves 7.3 MB per rank in 77 us, 98 GB/s: more than a 400 Gb/s NIC
// carries, so as published now it was measured with same-node peers on NVLink (DeepEP PR #173).
// The model is compared in that mode; the pure-RDMA mode (moe.ll_intra_node: network) is
// printed beside it, and at EP128 and EP256, where a node holds 7 of 127 or 255 peers, the two
// modes and the table agree on what is measured.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>

#include "calibration/cost_model.h"
#include "calibration/hardware_profile.h"
#include "models/layer_ops.h"
#include "models/presets.h"
#include "sim/rank_costs.h"
#include "topology/all_to_all.h"
#include "topology/moe_traffic.h"

namespace moesim {
namespace {

struct Published {
  int ep;
  double dispatch_us, combine_us;
};
// deepseek-ai/DeepEP docs/legacy.md (V1), low-latency table.
constexpr Published kTable[] = {{8, 77, 114},   {16, 118, 195},  {32, 155, 273},
                                {64, 173, 314}, {128, 192, 369}, {256, 194, 360}};

struct Modelled {
  double dispatch_us, combine_us;
};

Modelled model_kernels(int ep, bool network_only) {
  const auto hw = calibration::find_hardware_preset("h800");
  EXPECT_TRUE(hw.has_value());
  topology::ClusterConfig cfg = topology::cluster_preset_defaults("hgx");
  cfg.scaleup_bytes_per_s = hw->scaleup_bytes_per_s;
  cfg.nic_bytes_per_s = hw->nic_bytes_per_s;
  cfg.nodes = (ep + cfg.devices_per_node - 1) / cfg.devices_per_node;
  const topology::Cluster cluster(cfg);
  std::vector<int> devices(static_cast<std::size_t>(ep));
  std::iota(devices.begin(), devices.end(), 0);
  constexpr int kTokens = 128;
  topology::AllToAllTraffic traffic = topology::expected_moe_traffic(cluster, devices, {kTokens, 256, 8, 0, 0});
  const auto model = models::find_model_preset("deepseek-v3");
  EXPECT_TRUE(model.has_value());
  const double dispatch_bytes = models::dispatch_bytes_per_token(*model);
  const double combine_bytes = models::combine_bytes_per_token(*model);
  // Rank 0's kernels (uniform traffic: every rank alike).
  const auto cost = calibration::make_cost_model(calibration::CostModelKind::kFitted, *hw);
  const auto k = sim::low_latency_phases(*model, *cost, kTokens, std::llround(traffic.expert_bytes.received(0)),
                                         dispatch_bytes, combine_bytes);

  topology::AllToAllOptions a;
  a.algorithm = &topology::find_all_to_all("low-latency");
  a.network_only = network_only;
  a.direction = topology::Direction::kDispatch;
  a.scale = traffic.message_bytes = dispatch_bytes;  // one message per token-expert pair
  const auto dispatch =
      sim::low_latency_kernel(k, a.direction, topology::all_to_all(cluster, devices, traffic, a).duration_ns);
  a.direction = topology::Direction::kCombine;
  a.scale = traffic.message_bytes = combine_bytes;
  const auto combine =
      sim::low_latency_kernel(k, a.direction, topology::all_to_all(cluster, devices, traffic, a).duration_ns);
  return {dispatch.total() / 1e3, combine.total() / 1e3};
}

TEST(DeepEpLowLatency, KernelTimesAgainstPublished) {
  double worst = 0, sum = 0;
  int n = 0;
  for (const auto& row : kTable) {
    const Modelled nv = model_kernels(row.ep, false), net = model_kernels(row.ep, true);
    const double ed = nv.dispatch_us / row.dispatch_us - 1, ec = nv.combine_us / row.combine_us - 1;
    std::printf(
        "DeepEP low-latency EP%-3d: dispatch %6.1f us (pure RDMA %6.1f), published %3.0f us, error %+5.1f %%; "
        "combine %6.1f us (pure RDMA %6.1f), published %3.0f us, error %+5.1f %%\n",
        row.ep, nv.dispatch_us, net.dispatch_us, row.dispatch_us, 100 * ed, nv.combine_us, net.combine_us,
        row.combine_us, 100 * ec);
    for (const double e : {ed, ec}) {
      worst = std::max(worst, std::fabs(e));
      sum += std::fabs(e);
      ++n;
    }
    // Sending same-node pairs through the NICs never makes a kernel faster.
    EXPECT_GE(net.dispatch_us, nv.dispatch_us * 0.999) << row.ep;
    EXPECT_GE(net.combine_us, nv.combine_us * 0.999) << row.ep;
    // Drift guards, not targets: within a factor of two of every published row.
    EXPECT_GT(nv.dispatch_us, row.dispatch_us / 2) << row.ep;
    EXPECT_LT(nv.dispatch_us, row.dispatch_us * 2) << row.ep;
    EXPECT_GT(nv.combine_us, row.combine_us / 2) << row.ep;
    EXPECT_LT(nv.combine_us, row.combine_us * 2) << row.ep;
  }
  std::printf("DeepEP low-latency table: mean |error| %.1f %%, worst %.1f %%\n", 100 * sum / n, 100 * worst);
  // The agreement with an independent measurement is worth keeping: a change that moves the
  // mean error past 10 % (4.4 % when this test was written) needs a look at its physics.
  EXPECT_LT(sum / n, 0.10);
}

}  // namespace
}  // namespace moesim
