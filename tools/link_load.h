// A pool's fabric link loads summarised for reports (summary.json, report.html): per link class
// (scale-up, host, scale-out, fabric) and the busiest links. A link's utilisation is the bytes it
// carried over the run divided by what its effective capacity (line rate x efficiency) could
// carry in `seconds` (the run's makespan): the mean, not the peak during an all-to-all.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "sim/load_stats.h"
#include "topology/cluster.h"

namespace moesim::tools {

struct LinkClassLoad {
  std::string link_class;
  int links = 0;  // links of the class that carried any bytes
  double bytes = 0;
  double mean_utilisation = 0, max_utilisation = 0;  // over those links
};

struct LinkLoad {
  int id = -1;
  std::string name;  // topology::Cluster::link_name
  std::string link_class;
  double bytes = 0, utilisation = 0;
};

struct LinkLoadSummary {
  std::vector<LinkClassLoad> classes;  // classes that carried bytes, in LinkClass order
  std::vector<LinkLoad> busiest;       // by utilisation, highest first (ties: lower id), at most `top`
};

LinkLoadSummary summarize_links(const topology::Cluster& cluster, std::span<const double> link_bytes, double seconds,
                                std::size_t top);

// Per MoE layer, the busiest expert's pairs over the mean expert's
// (1 = balanced; 0 for a layer that saw no pairs).
std::vector<double> expert_imbalance(const sim::LoadStats& load);
// Over the whole run, the busiest rank's received pairs over the mean rank's (0 when none).
double rank_imbalance(const sim::LoadStats& load);

}  // namespace moesim::tools
