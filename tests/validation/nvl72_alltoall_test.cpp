// The NVL72 preset's all-to-all against TensorRT-LLM's published NVLinkOneSided kernel latencies
// on GB200 NVL72 (calibration data nvl72_alltoall_gb200.csv, a kernel benchmark: the preset's
// achievable NVLink egress and the all-to-all fixed costs were fitted to it, topology/a2a_fixed.h).
// The benchmark's perfect router sends each token to min(ep, 8) distinct ranks in equal shares,
// BF16 payload of 14,336 bytes per token-copy both ways; the model costs that traffic with the
// direct algorithm (one copy per destination rank). Every cell within 15 %.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "topology/all_to_all.h"
#include "topology/cluster.h"

namespace moesim {
namespace {

struct Cell {
  int batch = 0, ep = 0;
  double dispatch_us = 0, combine_us = 0;
};

std::vector<Cell> published() {
  std::ifstream in(std::string(MOESIM_SOURCE_DIR) + "/calibration/data/nvl72_alltoall_gb200.csv");
  std::vector<Cell> cells;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("batch", 0) == 0) continue;
    Cell c;
    char comma = 0;
    std::istringstream(line) >> c.batch >> comma >> c.ep >> comma >> c.dispatch_us >> comma >> c.combine_us;
    cells.push_back(c);
  }
  return cells;
}

double modelled_us(const topology::Cluster& cluster, int batch, int ep, topology::Direction direction,
                   double bytes_per_token = 14336) {
  std::vector<int> devices(static_cast<std::size_t>(ep));
  std::iota(devices.begin(), devices.end(), 0);
  topology::TrafficMatrix tokens(ep);
  const double share = static_cast<double>(batch) * std::min(ep, 8) / ep;  // tokens to each rank
  for (int s = 0; s < ep; ++s)
    for (int d = 0; d < ep; ++d)
      if (s != d) tokens.at(s, d) = share;
  topology::AllToAllOptions o;
  o.algorithm = &topology::find_all_to_all("direct");
  o.direction = direction;
  o.scale = bytes_per_token;  // default: hidden 7168 in BF16
  return topology::all_to_all(cluster, devices, tokens, o).duration_ns / 1e3;
}

TEST(AllToAllNvl72, ReproducesEveryPublishedCellWithin15Percent) {
  topology::ClusterConfig cfg = topology::cluster_preset_defaults("nvl72");
  cfg.nodes = 1;
  const topology::Cluster cluster(cfg);
  const auto cells = published();
  ASSERT_EQ(cells.size(), 20u);
  double worst = 0, sum = 0;
  std::printf("  batch  ep | dispatch pub / model  err    | combine pub / model  err\n");
  for (const auto& c : cells) {
    const double d = modelled_us(cluster, c.batch, c.ep, topology::Direction::kDispatch);
    const double m = modelled_us(cluster, c.batch, c.ep, topology::Direction::kCombine);
    const double ed = (d - c.dispatch_us) / c.dispatch_us, ec = (m - c.combine_us) / c.combine_us;
    std::printf("  %5d %3d | %6.1f / %6.1f %+6.1f %% | %6.1f / %6.1f %+6.1f %%\n", c.batch, c.ep, c.dispatch_us, d,
                100 * ed, c.combine_us, m, 100 * ec);
    worst = std::max({worst, std::abs(ed), std::abs(ec)});
    sum += std::abs(ed) + std::abs(ec);
    EXPECT_LT(std::abs(ed), 0.15) << c.batch << " x EP" << c.ep << " dispatch";
    EXPECT_LT(std::abs(ec), 0.15) << c.batch << " x EP" << c.ep << " combine";
  }
  std::printf("  mean |error| %.1f %%, worst %.1f %%\n", 100 * sum / (2.0 * cells.size()), 100 * worst);
}

// The blog's quantised dispatches at batch 2048, EP8 (the CSV's notes): MXFP8 (7,392 bytes per
// token) 172.2 us, NVFP4 (4,032 bytes) 101.7 us; the payload sizes of models::payload_formats.
TEST(AllToAllNvl72, QuantisedDispatchesWithin15Percent) {
  topology::ClusterConfig cfg = topology::cluster_preset_defaults("nvl72");
  cfg.nodes = 1;
  const topology::Cluster cluster(cfg);
  const double mxfp8 = modelled_us(cluster, 2048, 8, topology::Direction::kDispatch, 7168 + 7168 / 32);
  const double nvfp4 = modelled_us(cluster, 2048, 8, topology::Direction::kDispatch, 7168 / 2 + 7168 / 16);
  std::printf("  MXFP8 172.2 / %.1f us, NVFP4 101.7 / %.1f us\n", mxfp8, nvfp4);
  EXPECT_NEAR(mxfp8, 172.2, 0.15 * 172.2);
  EXPECT_NEAR(nvfp4, 101.7, 0.15 * 101.7);
}

// A one-token all-to-all inside the rack pays the kernels' fixed cost and the NVLink latency,
// never the NIC's: no byte leaves the rack.
TEST(AllToAllNvl72, AOneTokenAllToAllInsideTheRackPaysNoNetworkLatency) {
  topology::ClusterConfig cfg = topology::cluster_preset_defaults("nvl72");
  cfg.nodes = 2;
  const topology::Cluster cluster(cfg);
  for (const int ep : {8, 16, 64}) {
    const double us = modelled_us(cluster, 1, ep, topology::Direction::kDispatch);
    const double fixed = (cfg.a2a_dispatch_fixed_ns + (ep - 1) * cfg.a2a_dispatch_peer_ns) / 1e3;
    EXPECT_NEAR(us, fixed + cfg.scaleup_latency_ns / 1e3, 0.2) << ep;
  }
}

}  // namespace
}  // namespace moesim
