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

// add_row, and kCount: nz_col[d] += (row[d] > 0) for every d with the row's count of non-empty
// entries in *nz (exact small integers, so their order is free), in the same pass.
template <bool kCount>
double add_count_row(double* __restrict col, double* __restrict nz_col, const double* __restrict row, int n,
                     double* nz) {
  if constexpr (!kCount) {
    return add_row(col, row, n);
  } else {
    double acc[4] = {0, 0, 0, 0}, cnt[4] = {0, 0, 0, 0};
    int d = 0;
    for (; d + 4 <= n; d += 4)
      for (int j = 0; j < 4; ++j) {
        const double k = row[d + j] > 0 ? 1.0 : 0.0;
        col[d + j] += row[d + j];
        acc[j] += row[d + j];
        nz_col[d + j] += k;
        cnt[j] += k;
      }
    for (; d < n; ++d) {
      const double k = row[d] > 0 ? 1.0 : 0.0;
      col[d] += row[d], acc[0] += row[d];
      nz_col[d] += k, cnt[0] += k;
    }
    *nz = (cnt[0] + cnt[1]) + (cnt[2] + cnt[3]);
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
  }
}

// Direct (and low-latency): each pair goes scale-up inside a node, over the NICs otherwise. Per
// row a plain sum and a vertical add (both vectorise), plus short loops over the sender's node
// and leaf; everything else follows by subtraction. kCountMessages: low-latency with one message
// per non-empty network pair, counted the same way (sized messages need no count; see
// all_to_all_closed_form).
//
// Rows go R at a time: the vertical add reads the column sums once per R rows, and the node and
// leaf loops of the R rows run interleaved (R independent chains of adds instead of one). Every
// sum still adds its terms in the order of one row at a time; where the interleaved loops skip a
// term they add +0.0 instead, which leaves a sum that starts at +0.0 unchanged.
template <bool kCountMessages>
class Direct {
 public:
  Direct(const RankLayout& L, const TrafficMatrix& m, double scale, A2aVolumes& v)
      : L_(L), m_(m), scale_(scale), v_(v), buffer_((kCountMessages ? 7 : 4) * static_cast<std::size_t>(L.ranks), 0.0) {}

  void run() {
    const int n = L_.ranks;
    int s = 0;
    for (; s + 4 <= n; s += 4) rows<4>(s);
    for (; s < n; ++s) rows<1>(s);
    const auto N = static_cast<std::size_t>(n);
    const double* col = buffer_.data();
    const double *col_intra = col + N, *col_leaf = col_intra + N, *self = col_leaf + N, *nz_col = self + N;
    const double *nz_intra = nz_col + N, *nz_self = nz_intra + N;
    for (int d = 0; d < n; ++d) {
      const auto i = static_cast<std::size_t>(d);
      v_.up_recv[i] = col_intra[i] * scale_;
      const double out = std::max(0.0, col[i] - col_intra[i] - self[i]);
      v_.out_recv[i] = out * scale_;
      v_.leaf_down[static_cast<std::size_t>(L_.leaf[i])] += std::max(0.0, out - col_leaf[i]) * scale_;
      if constexpr (kCountMessages) v_.messages_in[i] = std::max(0.0, nz_col[i] - nz_intra[i] - nz_self[i]) * counted();
    }
  }

 private:
  double counted() const { return scale_ > 0 ? 1.0 : 0.0; }  // no bytes, no messages

  template <int R>
  void rows(int s0) {
    const int n = L_.ranks;
    const auto N = static_cast<std::size_t>(n);
    double* const col = buffer_.data();
    double* const col_intra = col + N;
    double* const col_leaf = col_intra + N;
    double* const self = col_leaf + N;
    double* const nz_col = self + N;
    double* const nz_intra = nz_col + N;
    double* const nz_self = nz_intra + N;
    const double* row[R];
    int ns[R], ls[R];
    double total[R], nz[R], intra[R] = {}, same_leaf[R] = {}, nz_on_node[R] = {};
    for (int r = 0; r < R; ++r) {
      row[r] = m_.row(s0 + r);
      ns[r] = L_.node[static_cast<std::size_t>(s0 + r)];
      ls[r] = L_.leaf[static_cast<std::size_t>(s0 + r)];
    }
    for (int r = 0; r < R; ++r) total[r] = add_count_row<kCountMessages>(col, nz_col, row[r], n, nz + r);
    // The node loop: rank d of the sender's node, d != s, goes scale-up.
    bool one_node = true;
    for (int r = 1; r < R; ++r) one_node = one_node && ns[r] == ns[0];
    if (one_node)
      node_loop<R>(s0, row, intra, nz_on_node);
    else
      for (int r = 0; r < R; ++r) node_loop<1>(s0 + r, row + r, intra + r, nz_on_node + r);
    // The leaf loop: ranks under the sender's leaf but on another node (no spine hop). The
    // senders' lists usually have one length (one rank per node on a rail-optimised fabric).
    bool one_length = true;
    for (int r = 1; r < R; ++r) one_length = one_length && L_.ranks_on_leaf(ls[r]).size() == L_.ranks_on_leaf(ls[0]).size();
    if (one_length)
      leaf_loop<R>(ns, ls, row, same_leaf);
    else
      for (int r = 0; r < R; ++r) leaf_loop<1>(ns + r, ls + r, row + r, same_leaf + r);
    for (int r = 0; r < R; ++r) {
      const int s = s0 + r;
      const auto i = static_cast<std::size_t>(s);
      self[i] = row[r][s];
      if constexpr (kCountMessages) {
        nz_self[i] = row[r][s] > 0 ? 1.0 : 0.0;
        v_.messages[i] = std::max(0.0, nz[r] - nz_on_node[r]) * counted();
      }
      const double out = std::max(0.0, total[r] - intra[r] - row[r][s]);
      v_.up_send[i] = intra[r] * scale_;
      v_.out_send[i] = out * scale_;
      const double cross = std::max(0.0, out - same_leaf[r]) * scale_;
      v_.leaf_up[static_cast<std::size_t>(ls[r])] += cross;
      v_.any_up = v_.any_up || intra[r] > 0;
      v_.any_out = v_.any_out || out > 0;
      v_.any_cross_leaf = v_.any_cross_leaf || cross > 0;
    }
  }

  // Rows s0 .. s0 + R - 1, all on one node.
  template <int R>
  void node_loop(int s0, const double* const* row, double* intra_out, double* nz_out) {
    const auto N = static_cast<std::size_t>(L_.ranks);
    double* const col_intra = buffer_.data() + N;
    double* const nz_intra = col_intra + 4 * N;
    double intra[R] = {}, nz_on_node[R] = {};
    for (const int d : L_.ranks_on_node(L_.node[static_cast<std::size_t>(s0)])) {
      const auto di = static_cast<std::size_t>(d);
      for (int r = 0; r < R; ++r) {
        const double x = d != s0 + r ? row[r][d] : 0.0;
        intra[r] += x;
        col_intra[di] += x;
        if constexpr (kCountMessages) {
          const double k = row[r][d] > 0 ? 1.0 : 0.0;
          nz_on_node[r] += k;
          nz_intra[di] += d != s0 + r ? k : 0.0;
        }
      }
    }
    for (int r = 0; r < R; ++r) intra_out[r] = intra[r], nz_out[r] = nz_on_node[r];
  }

  // Rows whose leaves hold equally many ranks.
  template <int R>
  void leaf_loop(const int* ns, const int* ls, const double* const* row, double* same_leaf_out) {
    double* const col_leaf = buffer_.data() + 2 * static_cast<std::size_t>(L_.ranks);
    const int *ranks[R], *nodes[R];
    for (int r = 0; r < R; ++r) ranks[r] = L_.ranks_on_leaf(ls[r]).data(), nodes[r] = L_.nodes_on_leaf(ls[r]).data();
    double same_leaf[R] = {};
    const std::size_t len = L_.ranks_on_leaf(ls[0]).size();
    for (std::size_t t = 0; t < len; ++t)
      for (int r = 0; r < R; ++r) {
        const int d = ranks[r][t];
        const double x = nodes[r][t] != ns[r] ? row[r][d] : 0.0;
        same_leaf[r] += x;
        col_leaf[static_cast<std::size_t>(d)] += x;
      }
    for (int r = 0; r < R; ++r) same_leaf_out[r] = same_leaf[r];
  }

  const RankLayout& L_;
  const TrafficMatrix& m_;
  const double scale_;
  A2aVolumes& v_;
  std::vector<double> buffer_;  // column sums, intra, same leaf, self; then message counts likewise
};

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
      Direct<true>(L, m, o.scale, v).run();  // one message per non-empty pair
    } else {
      Direct<false>(L, m, o.scale, v).run();
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
  // Only the bounding links of the ranks' devices and the leaves carry anything: the worst
  // utilisation and the per-class maxima are taken over those alone.
  double worst = 0;
  auto load = [&](int id, double bytes) {
    if (id < 0 || bytes <= 0) return;
    double& b = r.link_bytes[static_cast<std::size_t>(id)];
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
