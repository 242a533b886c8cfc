// Reproduces DeepEP's published normal-mode bandwidth table on H800 (calibration-data/
// deepep_normal_h800.csv) with the hgx preset's calibrated defaults, computing each row's
// bandwidth the way DeepEP's tests report it (docs/topology.md, "Calibration"), and prints the
// residuals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include "topology/all_to_all.h"
#include "topology/moe_traffic.h"

namespace moesim::topology {
namespace {

struct Row {
  bool internode;
  int ep;
  double dispatch_gbs, combine_gbs;
};

// deepep_normal_h800.csv
const Row kRows[] = {{false, 8, 153, 158}, {true, 16, 43, 43}, {true, 32, 58, 57}, {true, 64, 51, 50}};

constexpr int kTokens = 4096, kHidden = 7168, kExperts = 256, kTopK = 8;
// Bytes DeepEP counts per token: FP8 hidden + one FP32 scale per 128 (dispatch), BF16 (combine).
constexpr double kDispatchCounted = kHidden * (1 + 4.0 / 128);
constexpr double kCombineCounted = kHidden * 2.0;
// Bytes physically sent per token: dispatch adds the top-k ids and weights (int32 + FP32).
constexpr double kDispatchSent = kDispatchCounted + kTopK * 8.0;

struct Modelled {
  double dispatch_gbs, combine_gbs;
};

Modelled model_row(const Row& row) {
  ClusterConfig cfg = cluster_preset_defaults("hgx");
  cfg.nodes = row.ep / 8;
  const Cluster cluster(cfg);
  std::vector<int> devices(static_cast<std::size_t>(row.ep));
  std::iota(devices.begin(), devices.end(), 0);
  MoeRouting routing{kTokens, kExperts, kTopK, 0, 0};
  if (cfg.nodes > 1) routing.groups = cfg.nodes, routing.top_groups = std::min(cfg.nodes, 4);
  const AllToAllTraffic t = expected_moe_traffic(cluster, devices, routing);
  // Tokens DeepEP counts for rank 0: intranode, tokens received over NVLink including its own;
  // internode, tokens sent over RDMA counting each once per destination node, its own included.
  double counted = 0;
  if (row.internode) {
    for (int b = 0; b < cluster.num_nodes(); ++b) counted += t.node_bytes.at(0, b);
  } else {
    for (int s = 0; s < row.ep; ++s) counted += t.pair_bytes.at(s, 0);
  }
  AllToAllOptions o;
  o.algorithm = &find_all_to_all(row.internode ? "hierarchical" : "direct");
  o.scale = kDispatchSent;
  const double dispatch_ns = all_to_all(cluster, devices, t, o).duration_ns;
  o.direction = Direction::kCombine;
  o.scale = kCombineCounted;
  const double combine_ns = all_to_all(cluster, devices, t, o).duration_ns;
  return {counted * kDispatchCounted / dispatch_ns, counted * kCombineCounted / combine_ns};
}

TEST(DeepEpCalibration, ReproducesEveryNormalModeRowWithin15Percent) {
  std::printf("\n  DeepEP normal mode, H800 (GB/s, DeepEP's accounting)\n");
  std::printf("  %-10s %4s  %9s %9s %7s   %9s %9s %7s\n", "type", "ep", "disp.pub", "disp.mod", "resid", "comb.pub",
              "comb.mod", "resid");
  for (const Row& row : kRows) {
    const Modelled m = model_row(row);
    const double rd = m.dispatch_gbs / row.dispatch_gbs - 1, rc = m.combine_gbs / row.combine_gbs - 1;
    std::printf("  %-10s %4d  %9.1f %9.1f %+6.1f%%   %9.1f %9.1f %+6.1f%%\n", row.internode ? "internode" : "intranode",
                row.ep, row.dispatch_gbs, m.dispatch_gbs, 100 * rd, row.combine_gbs, m.combine_gbs, 100 * rc);
    EXPECT_LT(std::abs(rd), 0.15) << "dispatch EP" << row.ep;
    EXPECT_LT(std::abs(rc), 0.15) << "combine EP" << row.ep;
  }
}

}  // namespace
}  // namespace moesim::topology
