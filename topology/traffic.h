// Traffic of an all-to-all-v: what the caller knows about who sends what to whom.
//
// MoE dispatch needs more than a rank -> rank byte matrix, because the three algorithms
// deduplicate a token differently: `direct` sends a token once per destination rank, `hierarchical`
// (DeepEP normal mode) sends it across the network once per destination node and lets NVLink
// fan it out, `low-latency` (DeepEP LL) sends one message per token-expert pair. AllToAllTraffic
// carries all three views; the optional ones default to the rank view (no deduplication).
// Entries are bytes, or token counts scaled by AllToAllOptions::scale (bytes per token, e.g.
// models::dispatch_bytes_per_token; see docs/topology.md). Orientation is always dispatch's
// (token owner -> expert owner); combine reverses every flow (AllToAllOptions::direction).
#pragma once

#include <cstddef>
#include <vector>

namespace moesim::topology {

class TrafficMatrix {
 public:
  TrafficMatrix() : TrafficMatrix(0) {}
  explicit TrafficMatrix(int ranks) : ranks_(ranks), bytes_(static_cast<std::size_t>(ranks) * ranks, 0.0) {}
  int ranks() const { return ranks_; }
  double& at(int src, int dst) { return bytes_[static_cast<std::size_t>(src) * ranks_ + dst]; }
  double at(int src, int dst) const { return bytes_[static_cast<std::size_t>(src) * ranks_ + dst]; }
  const double* row(int src) const { return bytes_.data() + static_cast<std::size_t>(src) * ranks_; }
  double total_bytes() const;
  double received(int dst) const;  // the column's sum: what dst receives from every rank

 private:
  int ranks_;
  std::vector<double> bytes_;
};

// Bytes from a rank to a cluster node (scale-up domain), each token counted once per node.
class NodeTrafficMatrix {
 public:
  NodeTrafficMatrix() : NodeTrafficMatrix(0, 0) {}
  NodeTrafficMatrix(int ranks, int nodes)
      : ranks_(ranks), nodes_(nodes), bytes_(static_cast<std::size_t>(ranks) * nodes, 0.0) {}
  int ranks() const { return ranks_; }
  int nodes() const { return nodes_; }
  bool empty() const { return bytes_.empty(); }
  double& at(int src, int node) { return bytes_[static_cast<std::size_t>(src) * nodes_ + node]; }
  double at(int src, int node) const { return bytes_[static_cast<std::size_t>(src) * nodes_ + node]; }
  const double* row(int src) const { return bytes_.data() + static_cast<std::size_t>(src) * nodes_; }

 private:
  int ranks_, nodes_;
  std::vector<double> bytes_;
};

struct AllToAllTraffic {
  TrafficMatrix pair_bytes;      // [src rank][dst rank]: each token once per destination rank
  NodeTrafficMatrix node_bytes;  // [src rank][dst node]: once per node; empty = sum of pair_bytes
  TrafficMatrix expert_bytes;    // [src rank][dst rank]: once per token-expert pair; empty = pair_bytes
  double message_bytes = 0;      // low-latency message size (one token); 0 = one message per pair
};

// Non-owning view of the same (lets a bare rank matrix be costed without a copy).
struct TrafficView {
  const TrafficMatrix* pair = nullptr;
  const NodeTrafficMatrix* node = nullptr;  // null or empty: derive from pair
  const TrafficMatrix* expert = nullptr;    // null or empty: use pair
  double message_bytes = 0;
  TrafficView() = default;
  TrafficView(const AllToAllTraffic& t)  // NOLINT: implicit on purpose
      : pair(&t.pair_bytes), node(&t.node_bytes), expert(&t.expert_bytes), message_bytes(t.message_bytes) {}
  explicit TrafficView(const TrafficMatrix& m) : pair(&m) {}
  bool has_node() const { return node && !node->empty(); }
  const TrafficMatrix& expert_or_pair() const { return expert && expert->ranks() > 0 ? *expert : *pair; }
};

// MoE all-to-all traffic aggregated to what per-device links carry: the sufficient statistics of
// the analytic cost on a preset fabric, for routing drawn as margins (workloads/routing_margins.h)
// instead of a full rank x rank matrix. Nodes are the scale-up domains the ranks span, numbered
// densely in order of first appearance in rank order (topology::rank_domains). Entries are tokens
// (or token-expert pairs), scaled by AllToAllOptions::scale; orientation is dispatch's.
struct TrafficMargins {
  // What each rank sends into each node, in one of two forms.
  //  - Rows: sent_to_node[src * nodes + node] (the sender's own node: to its other ranks).
  //  - Factored (`factored`, for routing margins drawn without per-source node rows): a sender s on
  //    node a sends sent_own[s] to the other ranks of node a and, to every other node b,
  //    sent_remote[s] · spread_weight[b] / spread_norm[a] (spread_norm[a] <= 0: nothing leaves a).
  //    The rows are never formed, so the analytic cost reads them in O(ranks + nodes x leaves).
  bool factored = false;
  std::vector<double> sent_to_node;                // rows form
  std::vector<double> sent_own, sent_remote;       // [src], factored form
  std::vector<double> spread_weight, spread_norm;  // [node], factored form
  std::vector<double> received_intra;              // [dst]: from the other ranks of its node
  std::vector<double> received_remote;             // [dst]: from ranks on other nodes
  void assign(int ranks, int nodes) {
    factored = false;
    sent_to_node.assign(static_cast<std::size_t>(ranks) * static_cast<std::size_t>(nodes), 0.0);
    received_intra.assign(static_cast<std::size_t>(ranks), 0.0);
    received_remote.assign(static_cast<std::size_t>(ranks), 0.0);
  }
  void assign_factored(int ranks, int nodes) {
    factored = true;
    sent_to_node.clear();
    for (auto* v : {&sent_own, &sent_remote, &received_intra, &received_remote})
      v->assign(static_cast<std::size_t>(ranks), 0.0);
    spread_weight.assign(static_cast<std::size_t>(nodes), 0.0);
    spread_norm.assign(static_cast<std::size_t>(nodes), 0.0);
  }
  // Factored form: Σ spread_weight, and the share of a sender's sent_remote that leaves its node
  // `own` for all the other nodes together, Σ_{b≠own} spread_weight[b] / spread_norm[own].
  double spread_total() const {
    double total = 0;
    for (const double w : spread_weight) total += w;
    return total;
  }
  double leaving_share(int own, double spread_total) const {
    const auto a = static_cast<std::size_t>(own);
    return spread_norm[a] > 0 ? (spread_total - spread_weight[a]) / spread_norm[a] : 0.0;
  }
  // What src (on node `own`, of `nodes`) sends into `node`, in either form.
  double sent(int src, int own, int node, int nodes) const {
    const auto s = static_cast<std::size_t>(src);
    if (!factored) return sent_to_node[s * static_cast<std::size_t>(nodes) + static_cast<std::size_t>(node)];
    if (node == own) return sent_own[s];
    const double norm = spread_norm[static_cast<std::size_t>(own)];
    return norm > 0 ? sent_remote[s] * spread_weight[static_cast<std::size_t>(node)] / norm : 0.0;
  }
};

struct AggregatedTraffic {
  int ranks = 0;
  int nodes = 0;
  TrafficMargins pairs;        // one per token-expert pair (low-latency)
  TrafficMargins rank_tokens;  // once per destination rank (direct; hierarchical's NVLink hop)
  TrafficMargins node_tokens;  // once per destination node (hierarchical's network hop); only
                               // sent_to_node is read
  double message_bytes = 0;    // low-latency message size (one token); 0 = bulk transfers
  void assign(int r, int n) {
    ranks = r;
    nodes = n;
    pairs.assign(r, n);
    rank_tokens.assign(r, n);
    node_tokens.assign(r, n);
  }
};

}  // namespace moesim::topology
