#include "topology/a2a_closed_form.h"

#include <algorithm>
#include <span>
#include <string>

#include "topology/fidelity.h"

namespace moesim::topology {
namespace {

// col[d] += row[d] for every d; returns the row's sum (one pass, four independent lanes so
// that both halves vectorise without reassociating a single sum).
double add_row(double* __restrict col, const double* __restrict row, int n) {
  double acc[4] = {0, 0, 0, 0};
  int d = 0;
  for (; d + 4 <= n; d += 4)
    for (int j = 0; j < 4; ++j) {
      col[d + j] += row[d + j];
      acc[j] += row[d + j];
    }
  for (; d < n; ++d) col[d] += row[d], acc[0] += row[d];
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

// The sum of row[d] over `ranks`, in four independent lanes (a single chain of dependent adds
// would wait on each add's latency).
double gather_sum(const double* row, std::span<const int> ranks) {
  double acc[4] = {0, 0, 0, 0};
  std::size_t k = 0;
  for (; k + 4 <= ranks.size(); k += 4)
    for (std::size_t j = 0; j < 4; ++j) acc[j] += row[ranks[k + j]];
  for (; k < ranks.size(); ++k) acc[0] += row[ranks[k]];
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

// col[d] += (row[d] > 0) for every d; returns the row's count of non-empty entries.
double count_row(double* __restrict col, const double* __restrict row, int n) {
  double acc[4] = {0, 0, 0, 0};
  int d = 0;
  for (; d + 4 <= n; d += 4)
    for (int j = 0; j < 4; ++j) {
      const double k = row[d + j] > 0 ? 1.0 : 0.0;
      col[d + j] += k;
      acc[j] += k;
    }
  for (; d < n; ++d) {
    const double k = row[d] > 0 ? 1.0 : 0.0;
    col[d] += k, acc[0] += k;
  }
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

// Direct (and low-latency): each pair goes scale-up inside a node, over the NICs otherwise. Per
// row a plain sum and a vertical add (both vectorise), plus short loops over the sender's node
// and leaf; everything else follows by subtraction. kCountMessages: low-latency with one message
// per non-empty network pair, counted the same way (sized messages need no count; see
// all_to_all_closed_form).
template <bool kCountMessages>
void direct(const RankLayout& L, const TrafficMatrix& m, double scale, A2aVolumes& v) {
  const int n = L.ranks;
  const auto N = static_cast<std::size_t>(n);
  // One allocation: column sums, intra, same leaf, self; then the same for message counts.
  std::vector<double> buffer((kCountMessages ? 7 : 4) * N, 0.0);
  double* const col = buffer.data();
  double* const col_intra = col + N;
  double* const col_leaf = col_intra + N;
  double* const self = col_leaf + N;
  double* const nz_col = self + N;
  double* const nz_intra = nz_col + N;
  double* const nz_self = nz_intra + N;
  const double counted = scale > 0 ? 1.0 : 0.0;  // no bytes, no messages
  for (int s = 0; s < n; ++s) {
    const double* row = m.row(s);
    const auto i = static_cast<std::size_t>(s);
    const int ns = L.node[i], ls = L.leaf[i];
    const double total = add_row(col, row, n);
    self[i] = row[s];
    double intra = 0, same_leaf = 0;
    for (const int d : L.ranks_on_node(ns))
      if (d != s) intra += row[d], col_intra[static_cast<std::size_t>(d)] += row[d];
    if constexpr (kCountMessages) {
      double nz = count_row(nz_col, row, n), nz_on_node = 0;
      for (const int d : L.ranks_on_node(ns)) {
        const double k = row[d] > 0 ? 1.0 : 0.0;
        nz_on_node += k;
        if (d != s) nz_intra[static_cast<std::size_t>(d)] += k;
      }
      nz_self[i] = row[s] > 0 ? 1.0 : 0.0;
      v.messages[i] = std::max(0.0, nz - nz_on_node) * counted;
    }
    for (const int d : L.ranks_on_leaf(ls))
      if (L.node[static_cast<std::size_t>(d)] != ns) same_leaf += row[d], col_leaf[static_cast<std::size_t>(d)] += row[d];
    const double out = std::max(0.0, total - intra - row[s]);
    v.up_send[i] = intra * scale;
    v.out_send[i] = out * scale;
    const double cross = std::max(0.0, out - same_leaf) * scale;
    v.leaf_up[static_cast<std::size_t>(ls)] += cross;
    v.any_up = v.any_up || intra > 0;
    v.any_out = v.any_out || out > 0;
    v.any_cross_leaf = v.any_cross_leaf || cross > 0;
  }
  for (int d = 0; d < n; ++d) {
    const auto i = static_cast<std::size_t>(d);
    v.up_recv[i] = col_intra[i] * scale;
    const double out = std::max(0.0, col[i] - col_intra[i] - self[i]);
    v.out_recv[i] = out * scale;
    v.leaf_down[static_cast<std::size_t>(L.leaf[i])] += std::max(0.0, out - col_leaf[i]) * scale;
    if constexpr (kCountMessages) v.messages_in[i] = std::max(0.0, nz_col[i] - nz_intra[i] - nz_self[i]) * counted;
  }
}

// Hierarchical: the network hop once per (token, node) to the same-rail forwarder, then NVLink.
// Per sender, the scale-up receipts are the row itself but for the sender's own entry and the
// forwarders' entries (those arrive over the network), so one vertical add over the row plus a
// correction per node gives them; the per-node sums give the forwarders' scale-up sends.
void hierarchical(const Cluster& cluster, const RankLayout& L, const TrafficView& t, double scale, A2aVolumes& v) {
  const int n = L.ranks, nodes = cluster.num_nodes();
  const auto N = static_cast<std::size_t>(n);
  std::vector<double> buffer(2 * N, 0.0);  // column sums, and the entries that do not go scale-up
  double* const col = buffer.data();
  double* const excluded = col + N;
  bool contiguous = true;
  for (int b = 0; b < nodes && contiguous; ++b) {
    const std::span<const int> r = L.ranks_on_node(b);
    contiguous = r.empty() || r.back() - r.front() + 1 == static_cast<int>(r.size());
  }
  for (int s = 0; s < n; ++s) {
    const auto i = static_cast<std::size_t>(s);
    const int ns = L.node[i], ls = L.leaf[i];
    const std::span<const int> fwd = L.forwarders(s);
    const double* row = t.pair->row(s);
    if (!contiguous) add_row(col, row, n);
    excluded[i] += row[s];
    for (int b = 0; b < nodes; ++b) {
      const std::span<const int> on_node = L.ranks_on_node(b);
      // Ranks of a node numbered consecutively (the usual placement): the column add and the
      // node's sum in one pass over its block.
      const double to_node = on_node.empty() ? 0.0
                             : contiguous    ? add_row(col + on_node.front(), row + on_node.front(), static_cast<int>(on_node.size()))
                                             : gather_sum(row, on_node);
      if (b == ns) {
        v.up_send[i] += (to_node - row[s]) * scale;
        continue;
      }
      const int f = fwd[static_cast<std::size_t>(b)];
      const double w = (!t.has_node() ? to_node : t.node->at(s, b)) * scale;
      if (f < 0) {
        if (w > 0) throw TopologyError("hierarchical all-to-all: traffic to node " + std::to_string(b) + ", which has no rank");
        continue;
      }
      const auto fi = static_cast<std::size_t>(f);
      v.up_send[fi] += (to_node - row[f]) * scale;  // the forwarder fans the rest out
      excluded[fi] += row[f];
      if (w <= 0) continue;
      v.out_send[i] += w;
      v.out_recv[fi] += w;
      v.any_out = true;
      const int lf = L.leaf[fi];
      if (ls != lf) {
        v.leaf_up[static_cast<std::size_t>(ls)] += w;
        v.leaf_down[static_cast<std::size_t>(lf)] += w;
        v.any_cross_leaf = true;
      }
    }
  }
  for (std::size_t d = 0; d < N; ++d) {
    v.up_recv[d] = std::max(0.0, col[d] - excluded[d]) * scale;
    v.any_up = v.any_up || v.up_recv[d] > 0;
  }
}

}  // namespace

CommResult all_to_all_closed_form(const Cluster& cluster, const RankLayout& L, TrafficView t,
                                  const AllToAllOptions& o) {
  const int leaves = static_cast<int>(cluster.leaves().size());
  A2aVolumes v(L.ranks, std::max(leaves, 1));
  if (o.algorithm == "hierarchical") {
    hierarchical(cluster, L, t, o.scale, v);
  } else {
    const bool ll = o.algorithm == "low-latency";
    const TrafficMatrix& m = ll ? t.expert_or_pair() : *t.pair;
    if (ll && !(t.message_bytes > 0)) {
      direct<true>(L, m, o.scale, v);  // one message per non-empty pair
    } else {
      direct<false>(L, m, o.scale, v);
      if (ll)  // messages of message_bytes each: the network bytes over the message size
        for (std::size_t i = 0; i < v.messages.size(); ++i) {
          v.messages[i] = v.out_send[i] / t.message_bytes;
          v.messages_in[i] = v.out_recv[i] / t.message_bytes;
        }
    }
  }
  return closed_form_result(cluster, L, v, o);
}

CommResult closed_form_result(const Cluster& cluster, const RankLayout& L, const A2aVolumes& v,
                              const AllToAllOptions& o) {
  const int leaves = static_cast<int>(cluster.leaves().size());
  const bool combine = o.direction == Direction::kCombine;
  CommResult r;
  r.link_bytes.assign(static_cast<std::size_t>(cluster.num_links()), 0.0);
  r.links_listed = true;
  // Only the bounding links of the ranks' devices and the leaves carry anything: the worst
  // utilisation and the per-class maxima are taken over those alone.
  double worst = 0;
  auto load = [&](int id, double bytes) {
    if (id < 0 || bytes <= 0) return;
    double& b = r.link_bytes[static_cast<std::size_t>(id)];
    if (b == 0) r.loaded_links.push_back(id);
    b += bytes;
    const LinkProps& p = cluster.link_props(id);
    const double u = b / (p.bytes_per_s * p.efficiency);
    if (u > worst || (u == worst && id < r.bottleneck_link)) worst = u, r.bottleneck_link = id;
    if (p.cls == LinkClass::kScaleUp) r.max_scaleup_bytes = std::max(r.max_scaleup_bytes, b);
    if (p.cls == LinkClass::kScaleOut) r.max_scaleout_bytes = std::max(r.max_scaleout_bytes, b);
  };
  auto add = [&](int out_link, int in_link, double sent, double received) {
    if (combine) std::swap(sent, received);
    load(out_link, sent);
    load(in_link, received);
  };
  for (int k = 0; k < L.ranks; ++k) {
    const auto i = static_cast<std::size_t>(k);
    const DeviceLinks& dl = cluster.device_links(L.device[i]);
    add(dl.scaleup_out, dl.scaleup_in, v.up_send[i], v.up_recv[i]);
    add(dl.host_out, dl.host_in, v.out_send[i], v.out_recv[i]);
    add(dl.nic_out, dl.nic_in, v.out_send[i], v.out_recv[i]);
  }
  for (int l = 0; l < leaves; ++l) {
    const LeafLinks& ll = cluster.leaves()[static_cast<std::size_t>(l)];
    for (std::size_t s = 0; s < ll.up.size(); ++s)
      add(ll.up[s], ll.down[s], v.leaf_up[static_cast<std::size_t>(l)] / static_cast<double>(ll.up.size()),
          v.leaf_down[static_cast<std::size_t>(l)] / static_cast<double>(ll.up.size()));
  }
  r.transfer_ns = worst * 1e9;
  const DeviceLinks& rep = cluster.device_links(L.device.empty() ? 0 : L.device[0]);
  auto lat = [&](int id) { return id >= 0 ? cluster.link_props(id).latency_ns : 0.0; };
  if (v.any_up) r.latency_ns = lat(rep.scaleup_out) + lat(rep.scaleup_in);
  if (v.any_out) {
    double out = lat(rep.host_out) + lat(rep.nic_out) + lat(rep.nic_in) + lat(rep.host_in);
    if (v.any_cross_leaf && !cluster.leaves().empty() && !cluster.leaves()[0].up.empty())
      out += lat(cluster.leaves()[0].up[0]) + lat(cluster.leaves()[0].down[0]);
    r.latency_ns = std::max(r.latency_ns, out);
  }
  double msgs = 0;
  for (const double m : combine ? v.messages_in : v.messages) msgs = std::max(msgs, m);
  r.message_ns = msgs * 1e9 / cluster.config().nic_messages_per_s;
  r.duration_ns = r.transfer_ns + r.latency_ns + r.message_ns;
  bottleneck_device(cluster, r);
  return r;
}

}  // namespace moesim::topology
