#include "workloads/routing_targets.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "workloads/workload_error.h"

namespace moesim::workloads {

int RoutingTargets::nodes() const {
  int n = 1;
  for (const int r : rank_node) n = std::max(n, r + 1);
  return n;
}

int RoutingTargets::node_of(int rank) const {
  return rank_node.empty() ? 0 : rank_node[static_cast<std::size_t>(rank)];
}

bool RoutingTargets::same_content(const RoutingTargets& o) const {
  // The shares compared as bytes (stricter than ==, never looser).
  const bool same_shares = slot_share.size() == o.slot_share.size() &&
                           (slot_share.empty() || std::memcmp(slot_share.data(), o.slot_share.data(),
                                                              slot_share.size() * sizeof(double)) == 0);
  return ranks == o.ranks && experts == o.experts && classes == o.classes && slot_rank == o.slot_rank &&
         slot_expert == o.slot_expert && source_class == o.source_class && same_shares && rank_node == o.rank_node;
}

RoutingTargets RoutingTargets::contiguous(int experts, int ranks) {
  if (experts < 1 || ranks < 1 || experts % ranks != 0)
    throw WorkloadError("contiguous targets need experts divisible by ranks");
  RoutingTargets t;
  t.ranks = ranks;
  t.experts = experts;
  for (int e = 0; e < experts; ++e) {
    t.slot_rank.push_back(e / (experts / ranks));
    t.slot_expert.push_back(e);
  }
  t.source_class.assign(static_cast<std::size_t>(ranks), 0);
  t.slot_share.assign(static_cast<std::size_t>(experts), 1.0);
  return t;
}

void RoutingTargets::validate() const {
  const auto bad = [](const std::string& why) { throw WorkloadError("routing targets: " + why); };
  const auto slots = slot_rank.size();
  if (ranks < 1 || experts < 1 || classes < 1) bad("needs ranks, experts and classes >= 1");
  if (slot_expert.size() != slots || source_class.size() != static_cast<std::size_t>(ranks) ||
      slot_share.size() != static_cast<std::size_t>(classes) * slots)
    bad("array sizes do not match");
  for (std::size_t j = 0; j < slots; ++j)
    if (slot_rank[j] < 0 || slot_rank[j] >= ranks || slot_expert[j] < 0 || slot_expert[j] >= experts)
      bad("slot " + std::to_string(j) + " out of range");
  for (int c : source_class)
    if (c < 0 || c >= classes) bad("source class out of range");
  for (int c = 0; c < classes; ++c) {
    std::vector<double> sum(static_cast<std::size_t>(experts), 0.0);
    for (std::size_t j = 0; j < slots; ++j) {
      const double s = slot_share[static_cast<std::size_t>(c) * slots + j];
      if (!(s >= 0)) bad("negative share");
      sum[static_cast<std::size_t>(slot_expert[j])] += s;
    }
    for (int e = 0; e < experts; ++e)
      if (std::fabs(sum[static_cast<std::size_t>(e)] - 1.0) > 1e-9)
        bad("class " + std::to_string(c) + ": shares of expert " + std::to_string(e) + " sum to " +
            std::to_string(sum[static_cast<std::size_t>(e)]));
  }
}

}  // namespace moesim::workloads
