// The three all-to-all algorithms (topology/all_to_all_algorithm.h) and their registry.
#include <algorithm>
#include <string>

#include "topology/a2a_closed_form.h"
#include "topology/aggregated_all_to_all.h"
#include "topology/all_to_all.h"
#include "topology/rank_layout.h"

namespace moesim::topology {
namespace {

void add(std::vector<Flow>& flows, int src, int dst, double bytes, double messages = 0, bool network = false) {
  if (bytes > 0 && src != dst) flows.push_back({src, dst, bytes, messages, network});
}

// Every entry of `m` from its sender straight to its receiver; with `message_bytes` (low-latency)
// each flow carries its messages: bytes / message_bytes, or one when no size is given.
void pair_flows(const RankLayout& L, const TrafficMatrix& m, const AllToAllOptions& o, bool messages,
                double message_bytes, std::vector<Flow>& flows) {
  const int n = L.ranks;
  const auto dev = [&](int r) { return L.device[static_cast<std::size_t>(r)]; };
  flows.reserve(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d) {
      const double b = m.at(s, d) * o.scale;
      if (b <= 0 || s == d) continue;
      const double msgs = !messages ? 0.0 : message_bytes > 0 ? b / message_bytes : 1.0;
      add(flows, dev(s), dev(d), b, msgs, o.network_only);
    }
}

class Direct final : public AllToAllAlgorithm {
 public:
  std::string_view name() const override { return "direct"; }
  std::string_view description() const override {
    return "every rank sends to every rank on the shortest route, once per destination rank";
  }
  void add_flows(const Cluster&, const RankLayout& L, const TrafficView& t, const AllToAllOptions& o,
                 std::vector<Flow>& flows) const override {
    pair_flows(L, *t.pair, o, false, 0.0, flows);
  }
  void closed_form_volumes(const Cluster&, const RankLayout& L, const TrafficView& t, const AllToAllOptions& o,
                           A2aVolumes& v) const override {
    closed_form_pairs(L, *t.pair, o.scale, PairMessages::kNone, v);
  }
  void aggregated_volumes(const AggregatedAllToAll& a2a, const AggregatedTraffic& t, const AllToAllOptions& o,
                          A2aVolumes& v) const override {
    a2a.direct_volumes(t.rank_tokens, o.scale, 0.0, o.network_only, v);
  }
};

class Hierarchical final : public AllToAllAlgorithm {
 public:
  std::string_view name() const override { return "hierarchical"; }
  std::string_view description() const override {
    return "DeepEP normal: network hop once per node to the same-rail rank, then NVLink fan-out";
  }
  bool forwards() const override { return true; }
  int hbm_passes() const override { return 4; }

  void add_flows(const Cluster& cluster, const RankLayout& L, const TrafficView& t, const AllToAllOptions& o,
                 std::vector<Flow>& flows) const override {
    const int n = L.ranks, nodes = cluster.num_nodes();
    const auto dev = [&](int r) { return L.device[static_cast<std::size_t>(r)]; };
    std::vector<double> nvlink(static_cast<std::size_t>(n) * n, 0.0), to_node(static_cast<std::size_t>(nodes));
    for (int s = 0; s < n; ++s) {
      const int ns = L.node[static_cast<std::size_t>(s)];
      std::fill(to_node.begin(), to_node.end(), 0.0);
      for (int d = 0; d < n; ++d) {
        const double b = t.pair->at(s, d) * o.scale;
        if (b <= 0 || d == s) continue;
        const int nd = L.node[static_cast<std::size_t>(d)];
        to_node[static_cast<std::size_t>(nd)] += b;
        const int from = nd == ns ? s : L.forwarder(s, nd);
        nvlink[static_cast<std::size_t>(from) * n + d] += b;
      }
      for (int b = 0; b < nodes; ++b) {
        if (b == ns) continue;
        const double w = !t.has_node() ? to_node[static_cast<std::size_t>(b)] : t.node->at(s, b) * o.scale;
        if (w <= 0) continue;
        const int f = L.forwarder(s, b);
        if (f < 0)
          throw TopologyError("hierarchical all-to-all: traffic to node " + std::to_string(b) + ", which has no rank");
        add(flows, dev(s), dev(f), w);
      }
    }
    for (int f = 0; f < n; ++f)
      for (int d = 0; d < n; ++d) add(flows, dev(f), dev(d), nvlink[static_cast<std::size_t>(f) * n + d]);
  }
  void closed_form_volumes(const Cluster& cluster, const RankLayout& L, const TrafficView& t, const AllToAllOptions& o,
                           A2aVolumes& v) const override {
    closed_form_hierarchical(cluster, L, t, o.scale, v);
  }
  void aggregated_volumes(const AggregatedAllToAll& a2a, const AggregatedTraffic& t, const AllToAllOptions& o,
                          A2aVolumes& v) const override {
    if (t.rank_tokens.factored || t.node_tokens.factored)
      throw TopologyError("hierarchical all-to-all needs each sender's traffic per node, not factored margins");
    a2a.hierarchical_volumes(t, o.scale, v);
  }
};

class LowLatency final : public AllToAllAlgorithm {
 public:
  std::string_view name() const override { return "low-latency"; }
  std::string_view description() const override {
    return "DeepEP low-latency: one message per token-expert pair, RDMA or NVLink direct";
  }
  bool low_latency() const override { return true; }
  int launches() const override { return 2; }

  void add_flows(const Cluster&, const RankLayout& L, const TrafficView& t, const AllToAllOptions& o,
                 std::vector<Flow>& flows) const override {
    pair_flows(L, t.expert_or_pair(), o, true, t.message_bytes, flows);
  }
  void closed_form_volumes(const Cluster&, const RankLayout& L, const TrafficView& t, const AllToAllOptions& o,
                           A2aVolumes& v) const override {
    const TrafficMatrix& m = t.expert_or_pair();
    if (!(t.message_bytes > 0)) {
      // One message per non-empty pair, counted on the side the direction reads.
      closed_form_pairs(L, m, o.scale,
                        o.direction == Direction::kCombine ? PairMessages::kReceived : PairMessages::kSent, v);
      return;
    }
    closed_form_pairs(L, m, o.scale, PairMessages::kNone, v);
    // Messages of message_bytes each: the network bytes over the message size.
    for (std::size_t i = 0; i < v.messages.size(); ++i) {
      v.messages[i] = v.out_send[i] / t.message_bytes;
      v.messages_in[i] = v.out_recv[i] / t.message_bytes;
    }
  }
  void aggregated_volumes(const AggregatedAllToAll& a2a, const AggregatedTraffic& t, const AllToAllOptions& o,
                          A2aVolumes& v) const override {
    a2a.direct_volumes(t.pairs, o.scale, t.message_bytes, o.network_only, v);
  }
  // The send and receive kernels are costed on the compute stream, launches included.
  double fixed_ns(const ClusterConfig&, const AllToAllOptions&, int) const override { return 0.0; }
};

}  // namespace

const AllToAllAlgorithm& direct_all_to_all() {
  static const Direct algorithm;
  return algorithm;
}

const AllToAllAlgorithm& hierarchical_all_to_all() {
  static const Hierarchical algorithm;
  return algorithm;
}

const AllToAllAlgorithm& low_latency_all_to_all() {
  static const LowLatency algorithm;
  return algorithm;
}

const std::vector<const AllToAllAlgorithm*>& all_to_all_registry() {
  static const std::vector<const AllToAllAlgorithm*> registry{&direct_all_to_all(), &hierarchical_all_to_all(),
                                                              &low_latency_all_to_all()};
  return registry;
}

const AllToAllAlgorithm& find_all_to_all(std::string_view name) {
  std::string names;
  for (const AllToAllAlgorithm* a : all_to_all_registry()) {
    if (a->name() == name) return *a;
    names += (names.empty() ? "" : ", ") + std::string(a->name());
  }
  throw TopologyError("unknown all-to-all algorithm '" + std::string(name) + "' (valid: " + names + ")");
}

}  // namespace moesim::topology
