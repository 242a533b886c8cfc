#include "topology/a2a_closed_form.h"

#include <algorithm>
#include <span>
#include <string>
#include <utility>

#include "topology/a2a_fixed.h"
#include "topology/avx2_clones.h"
#include "topology/fidelity.h"

// The row passes below are plain loops the compiler vectorises; the two entry points
// (direct_volumes, hierarchical_railed) are also compiled for AVX2 (topology/avx2_clones.h).

namespace moesim::topology {
namespace {

// col[d] += row[d] for every d; returns the row's sum (one pass, four independent lanes so
// that both halves vectorise without reassociating a single sum).
[[gnu::always_inline]] inline double add_row(double* __restrict col, const double* __restrict row, int n) {
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
[[gnu::always_inline]] inline double gather_sum(const double* row, std::span<const int> ranks) {
  double acc[4] = {0, 0, 0, 0};
  std::size_t k = 0;
  for (; k + 4 <= ranks.size(); k += 4)
    for (std::size_t j = 0; j < 4; ++j) acc[j] += row[ranks[k + j]];
  for (; k < ranks.size(); ++k) acc[0] += row[ranks[k]];
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

// col[d] += (row[d] > 0) for every d (counts: exact small integers, in any order).
[[gnu::always_inline]] inline void count_column(double* __restrict col, const double* __restrict row, int n) {
  for (int d = 0; d < n; ++d) col[d] += row[d] > 0 ? 1.0 : 0.0;
}

// The row's count of non-empty entries (exact small integers: eight lanes, in any order).
[[gnu::always_inline]] inline double count_positive(const double* row, int n) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int d = 0;
  for (; d + 8 <= n; d += 8)
    for (int j = 0; j < 8; ++j) acc[j] += row[d + j] > 0 ? 1.0 : 0.0;
  for (; d < n; ++d) acc[0] += row[d] > 0 ? 1.0 : 0.0;
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

using Count = PairMessages;

// col[d] += row[d] for every d (n a multiple of 8) and sums[j] = the sum of row[8k + j] over k, in
// one pass; for low-latency combine (kReceived) the row's non-empty entries added to each
// receiver's count in nz_col in the same pass.
template <Count kCount>
[[gnu::always_inline]] inline void add_row_by8(double* __restrict col, const double* __restrict row, int n,
                                               double* __restrict sums, double* __restrict nz_col) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int d = 0; d < n; d += 8)
    for (int j = 0; j < 8; ++j) {
      const double x = row[d + j];
      col[d + j] += x;
      acc[j] += x;
      if constexpr (kCount == Count::kReceived) nz_col[d + j] += x > 0 ? 1.0 : 0.0;
    }
  for (int j = 0; j < 8; ++j) sums[j] = acc[j];
}

// Direct's volumes of sender i (on leaf ls) from its row's total, what it sends inside its node
// (intra) and to itself, and what it sends to other nodes under its own leaf.
[[gnu::always_inline]] inline void book_sender(A2aVolumes& v, std::size_t i, int ls, double total, double intra,
                                               double self, double same_leaf, double scale) {
  // What leaves the node is a difference of sums: a rounding residue of the total is nothing
  // (else an all-to-all inside one domain would pay the network's latency).
  double out = total - intra - self;
  if (!(out > 1e-9 * total)) out = out != out ? out : 0.0;  // keep a NaN visible
  v.up_send[i] = intra * scale;
  v.out_send[i] = out * scale;
  const double cross = std::max(0.0, out - same_leaf) * scale;
  v.leaf_up[static_cast<std::size_t>(ls)] += cross;
  v.any_up = v.any_up || intra > 0;
  v.any_out = v.any_out || out > 0;
  v.any_cross_leaf = v.any_cross_leaf || cross > 0;
}

// Likewise for receiver d (on leaf ld) from its column's total, what it receives from its node's
// other ranks and from itself, and what comes from other nodes under its own leaf.
[[gnu::always_inline]] inline void book_receiver(A2aVolumes& v, std::size_t d, int ld, double col, double intra,
                                                 double self, double same_leaf, double scale) {
  v.up_recv[d] = intra * scale;
  const double out = std::max(0.0, col - intra - self);
  v.out_recv[d] = out * scale;
  v.leaf_down[static_cast<std::size_t>(ld)] += std::max(0.0, out - same_leaf) * scale;
}

// Direct (and low-latency): each pair goes scale-up inside a node, over the NICs otherwise. Per
// row a plain sum and a vertical add (both vectorise), plus short loops over the sender's node
// and leaf; everything else follows by subtraction. kCount: low-latency with one message per
// non-empty network pair, counted the same way, on the side the direction reads (sized messages
// need no count; see all_to_all_closed_form).
template <Count kCount>
[[gnu::always_inline]] inline void direct(const RankLayout& L, const TrafficMatrix& m, double scale, A2aVolumes& v) {
  const int n = L.ranks;
  const auto N = static_cast<std::size_t>(n);
  // One allocation: column sums, intra, same leaf, self; then the same for message counts.
  std::vector<double> buffer((kCount == Count::kReceived ? 7 : 4) * N, 0.0);
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
    if constexpr (kCount == Count::kSent) {  // the non-empty entries off the sender's node
      double nz_on_node = 0;
      for (const int d : L.ranks_on_node(ns)) nz_on_node += row[d] > 0 ? 1.0 : 0.0;
      v.messages[i] = std::max(0.0, count_positive(row, n) - nz_on_node) * counted;
    }
    if constexpr (kCount == Count::kReceived) {
      count_column(nz_col, row, n);
      for (const int d : L.ranks_on_node(ns))
        if (d != s) nz_intra[static_cast<std::size_t>(d)] += row[d] > 0 ? 1.0 : 0.0;
      nz_self[i] = row[s] > 0 ? 1.0 : 0.0;
    }
    for (const int d : L.ranks_on_leaf(ls))
      if (L.node[static_cast<std::size_t>(d)] != ns)
        same_leaf += row[d], col_leaf[static_cast<std::size_t>(d)] += row[d];
    book_sender(v, i, ls, total, intra, row[s], same_leaf, scale);
  }
  for (int d = 0; d < n; ++d) {
    const auto i = static_cast<std::size_t>(d);
    book_receiver(v, i, L.leaf[i], col[i], col_intra[i], self[i], col_leaf[i], scale);
    if constexpr (kCount == Count::kReceived)
      v.messages_in[i] = std::max(0.0, nz_col[i] - nz_intra[i] - nz_self[i]) * counted;
  }
}

// Direct (and low-latency) on a railed placement whose leaves follow the position in the node or
// the node (RankLayout::rail_leaf_classes()):
// the sums direct() forms, arranged so that every row costs one vectorised pass. Node k's block
// is [k * g, (k + 1) * g). Per row, one pass adds it into the column sums of the sender's leaf
// class and sums it by position (g lanes), which gives the row's total and, by position class,
// what it sends to its leaf; the sender's own block is then walked directly. A receiver's
// same-leaf off-node receipts are its column in its own leaf class's sums less what came from its
// own node. The association of the sums differs from direct()'s (exact for the integer token
// counts a simulation passes; within rounding otherwise).
template <Count kCount>
[[gnu::always_inline]] inline void direct_railed(const RankLayout& L, const TrafficMatrix& m, double scale,
                                                 A2aVolumes& v) {
  const int n = L.ranks, g = L.railed_block(), K = n / g;
  const auto N = static_cast<std::size_t>(n), G = static_cast<std::size_t>(g);
  const bool by_position = L.rail_leaves_by_position();
  const std::span<const int> cls = L.rail_leaf_classes();  // positions under one leaf, one class
  const auto C = static_cast<std::size_t>(L.rail_leaf_class_count());
  // Column sums per class, intra, own-node same-class receipts, self, position sums; then the
  // same for message counts.
  std::vector<double> buffer((C + 3) * N + G + (kCount == Count::kReceived ? 3 * N : 0), 0.0);
  double* const col_by_class = buffer.data();
  double* const col_intra = col_by_class + C * N;
  double* const own_same = col_intra + N;
  double* const self = own_same + N;
  double* const by_pos = self + N;
  double* const nz_col = by_pos + G;
  double* const nz_intra = nz_col + N;
  double* const nz_self = nz_intra + N;
  const double counted = scale > 0 ? 1.0 : 0.0;  // no bytes, no messages
  for (int s = 0; s < n; ++s) {
    const double* __restrict row = m.row(s);
    const auto i = static_cast<std::size_t>(s);
    const int ls = L.leaf[i], b = s / g, p = s - b * g;
    const int cs = cls[static_cast<std::size_t>(p)];
    double* __restrict col = col_by_class + static_cast<std::size_t>(cs) * N;
    if (g == 8) {  // eight lanes in registers (HGX nodes), combine's counts in the same pass
      add_row_by8<kCount>(col, row, n, by_pos, nz_col);
    } else {
      if constexpr (kCount == Count::kReceived) count_column(nz_col, row, n);
      std::fill(by_pos, by_pos + G, 0.0);
      for (int k = 0; k < K; ++k) {
        const std::size_t o = static_cast<std::size_t>(k) * G;
        for (std::size_t j = 0; j < G; ++j) {
          col[o + j] += row[o + j];
          by_pos[j] += row[o + j];
        }
      }
    }
    double total = 0, same_leaf = 0;
    for (std::size_t j = 0; j < G; ++j) total += by_pos[j];
    const double* own = row + static_cast<std::size_t>(b) * G;
    const std::size_t ob = static_cast<std::size_t>(b) * G;
    double intra = 0;
    for (std::size_t j = 0; j < G; ++j) {
      const bool same = cls[j] == cs;
      if (by_position && same) same_leaf += by_pos[j] - own[j];
      if (static_cast<int>(j) == p) continue;
      intra += own[j];
      col_intra[ob + j] += own[j];
      if (same) own_same[ob + j] += own[j];
    }
    self[i] = row[s];
    if constexpr (kCount == Count::kSent) {  // the non-empty entries off the sender's node
      double nz_on_node = 0;
      for (std::size_t j = 0; j < G; ++j) nz_on_node += own[j] > 0 ? 1.0 : 0.0;
      v.messages[i] = std::max(0.0, count_positive(row, n) - nz_on_node) * counted;
    }
    if constexpr (kCount == Count::kReceived) {
      for (std::size_t j = 0; j < G; ++j)
        if (static_cast<int>(j) != p) nz_intra[ob + j] += own[j] > 0 ? 1.0 : 0.0;
      nz_self[i] = row[s] > 0 ? 1.0 : 0.0;
    }
    book_sender(v, i, ls, total, intra, row[s], same_leaf, scale);
  }
  for (std::size_t d = 0; d < N; ++d) {
    double col = 0;
    for (std::size_t c = 0; c < C; ++c) col += col_by_class[c * N + d];
    const double same_leaf =
        by_position ? col_by_class[static_cast<std::size_t>(cls[d % G]) * N + d] - own_same[d] - self[d] : 0.0;
    book_receiver(v, d, L.leaf[d], col, col_intra[d], self[d], same_leaf, scale);
    if constexpr (kCount == Count::kReceived)
      v.messages_in[d] = std::max(0.0, nz_col[d] - nz_intra[d] - nz_self[d]) * counted;
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
      const double to_node =
          on_node.empty() ? 0.0
          : contiguous    ? add_row(col + on_node.front(), row + on_node.front(), static_cast<int>(on_node.size()))
                          : gather_sum(row, on_node);
      if (b == ns) {
        v.up_send[i] += (to_node - row[s]) * scale;
        continue;
      }
      const int f = fwd[static_cast<std::size_t>(b)];
      const double w = (!t.has_node() ? to_node : t.node->at(s, b)) * scale;
      if (f < 0) {
        if (w > 0)
          throw TopologyError("hierarchical all-to-all: traffic to node " + std::to_string(b) + ", which has no rank");
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

// col[d] += row[d] for every d.
[[gnu::always_inline]] inline void add_to(double* __restrict col, const double* __restrict row, int n) {
  for (int d = 0; d < n; ++d) col[d] += row[d];
}

// The sum of each of a row's `blocks` consecutive blocks of g entries, in add_row's four lanes
// from the block's start (what add_row returns for the block).
[[gnu::always_inline]] inline void block_sums(const double* row, int blocks, int g, double* sums) {
  for (int k = 0; k < blocks; ++k) {
    const double* b = row + static_cast<std::ptrdiff_t>(k) * g;
    double a[4] = {0, 0, 0, 0};
    int i = 0;
    for (; i + 4 <= g; i += 4)
      for (int j = 0; j < 4; ++j) a[j] += b[i + j];
    for (; i < g; ++i) a[0] += b[i];
    sums[k] = (a[0] + a[1]) + (a[2] + a[3]);
  }
}

// The same for blocks of 8, in two vectorising passes (pairs, then each block's four pair sums).
// add_row's lanes are (0 + b[j]) + b[j + 4]; the 0 + only turns a -0.0 into +0.0, and a block
// sum's sign of zero reaches no result (hierarchical_railed sends only where !(sum * scale <= 0),
// alike for either zero).
[[gnu::always_inline]] inline void block_sums8(const double* __restrict row, int blocks, double* __restrict pairs,
                                               double* __restrict sums) {
  for (int k = 0; k < blocks; ++k)
    for (int j = 0; j < 4; ++j) pairs[4 * k + j] = row[8 * k + j] + row[8 * k + 4 + j];
  for (int k = 0; k < blocks; ++k) sums[k] = (pairs[4 * k] + pairs[4 * k + 1]) + (pairs[4 * k + 2] + pairs[4 * k + 3]);
}

// One sender's network sends to nodes [k0, k1): w * scale where it is sent (!(w * scale <= 0), as
// hierarchical() tests it; +0.0 elsewhere), into `out` and added to the forwarders' receipts.
[[gnu::always_inline]] inline void send(const double* __restrict w, double scale, int k0, int k1,
                                        double* __restrict received, double* __restrict out) {
  for (int k = k0; k < k1; ++k) {
    const double wk = w[k] * scale;
    const double x = !(wk <= 0) ? wk : 0.0;
    received[k] += x;
    out[k] = x;
  }
}

// The sum of x[0, n) in four lanes.
[[gnu::always_inline]] inline double lane_sum(const double* x, int n) {
  double a[4] = {0, 0, 0, 0};
  int i = 0;
  for (; i + 4 <= n; i += 4)
    for (int j = 0; j < 4; ++j) a[j] += x[i + j];
  for (; i < n; ++i) a[0] += x[i];
  return (a[0] + a[1]) + (a[2] + a[3]);
}

// Hierarchical on a railed placement (RankLayout::railed_block()): the sums hierarchical() forms,
// gathered by the senders' local index. Rank x forwards exactly the senders with x's local index
// li into x's node k, so with, over those senders, C[li] the column sums, B[li][k] the sums of
// their rows' node-k blocks and W[li][k] what they send to node k over the network:
//   entries x does not receive over scale-up (its own and those it is sent over the network) =
//   C[li][x], its scale-up sends = (B[li][k] - C[li][x]) * scale, its network receipts = W[li][k].
// One vertical add per row (and its block sums when there is no node matrix); network sends and
// receipts are added term for term in hierarchical()'s order (a send counts where
// !(w * scale <= 0)). The other sums differ from hierarchical()'s only in association (exact for
// the integer token counts a simulation passes).
MOESIM_AVX2_CLONES void hierarchical_railed(const RankLayout& L, const TrafficView& t, double scale, A2aVolumes& v) {
  const int n = L.ranks, g = L.railed_block();
  const std::vector<int>& active = L.active_nodes();
  const int K = static_cast<int>(active.size());
  const auto N = static_cast<std::size_t>(n), KK = static_cast<std::size_t>(K);
  const bool by_node = t.has_node();
  if (by_node && K < t.node->nodes())  // the first sender and node in the order hierarchical() meets them
    for (int s = 0; s < n; ++s)
      for (int b = 0, k = 0; b < t.node->nodes(); ++b) {
        if (k < K && active[static_cast<std::size_t>(k)] == b) {
          ++k;
          continue;
        }
        if (t.node->at(s, b) * scale > 0)
          throw TopologyError("hierarchical all-to-all: traffic to node " + std::to_string(b) + ", which has no rank");
      }
  const auto S = static_cast<std::size_t>(L.local_slots());
  // C [local][rank], B and W [local][node]; per node: the row's block sums, what it sends, the
  // node matrix's row at the active nodes, block_sums8's pair sums.
  std::vector<double> buffer(S * N + 2 * S * KK + 7 * KK, 0.0);
  double* const C = buffer.data();
  double* const B = C + S * N;
  double* const W = B + S * KK;
  double* const sums = W + S * KK;
  double* const out = sums + KK;
  double* const gathered = out + KK;
  double* const pairs = gathered + KK;  // [K][4]
  const bool all_active = by_node && K == t.node->nodes();
  // Senders in order (consecutive rows stream best), each row added into its local index's
  // column sums.
  for (int s = 0; s < n; ++s) {
    const double* row = t.pair->row(s);
    const auto li = static_cast<std::size_t>(L.local[static_cast<std::size_t>(s)]);
    const int own = s / g;  // the sender's node, as an index into the active nodes
    add_to(C + li * N, row, n);
    const double* w = sums;  // what goes over the network to each node: the row's block sums
    if (!by_node) {
      if (g == 8)
        block_sums8(row, K, pairs, sums);
      else
        block_sums(row, K, g, sums);
    } else {  // or the node matrix's row
      w = t.node->row(s);
      if (!all_active) {
        for (std::size_t k = 0; k < KK; ++k) gathered[k] = w[active[k]];
        w = gathered;
      }
    }
    double* const received = W + li * KK;
    send(w, scale, 0, own, received, out);
    send(w, scale, own + 1, K, received, out);
    out[own] = 0.0;
    v.out_send[static_cast<std::size_t>(s)] = lane_sum(out, K);
    for (std::size_t k = 0; k < KK; ++k) v.any_out = v.any_out || out[k] != 0;  // positive or NaN
    if (!L.rail_on_one_leaf(static_cast<int>(li))) {
      const int ls = L.leaf[static_cast<std::size_t>(s)];
      const std::span<const int> rail = L.rail_forwarders(static_cast<int>(li));
      for (std::size_t k = 0; k < KK; ++k) {
        const int lf = L.leaf[static_cast<std::size_t>(rail[k])];
        if (out[k] <= 0 || ls == lf) continue;
        v.leaf_up[static_cast<std::size_t>(ls)] += out[k];
        v.leaf_down[static_cast<std::size_t>(lf)] += out[k];
        v.any_cross_leaf = true;
      }
    }
  }
  // B[li][k]: the sum over rail li's senders of their rows' node-k blocks, which is the sum of
  // C[li] over node k's block.
  for (std::size_t li = 0; li < S; ++li)
    for (std::size_t k = 0; k < KK; ++k) {
      const double* c = C + li * N + k * static_cast<std::size_t>(g);
      double b = 0;
      for (int j = 0; j < g; ++j) b += c[j];
      B[li * KK + k] = b;
    }
  for (std::size_t x = 0; x < N; ++x) {
    const auto li = static_cast<std::size_t>(L.local[x]);
    const std::size_t k = x / static_cast<std::size_t>(g);
    const double own = C[li * N + x];
    double col = 0;
    for (std::size_t l = 0; l < S; ++l) col += C[l * N + x];
    v.up_send[x] = (B[li * KK + k] - own) * scale;
    v.out_recv[x] = W[li * KK + k];
    v.up_recv[x] = std::max(0.0, col - own) * scale;
    v.any_up = v.any_up || v.up_recv[x] > 0;
  }
}
// direct() for each kind of count, in one function compiled for the row-pass targets.
MOESIM_AVX2_CLONES void direct_volumes(const RankLayout& L, const TrafficMatrix& m, double scale, Count count,
                                       A2aVolumes& v) {
  if (!L.rail_leaf_classes().empty()) switch (count) {
      case Count::kNone: return direct_railed<Count::kNone>(L, m, scale, v);
      case Count::kSent: return direct_railed<Count::kSent>(L, m, scale, v);
      case Count::kReceived: return direct_railed<Count::kReceived>(L, m, scale, v);
    }
  switch (count) {
    case Count::kNone: return direct<Count::kNone>(L, m, scale, v);
    case Count::kSent: return direct<Count::kSent>(L, m, scale, v);
    case Count::kReceived: return direct<Count::kReceived>(L, m, scale, v);
  }
}

}  // namespace

void closed_form_pairs(const RankLayout& L, const TrafficMatrix& m, double scale, PairMessages count, A2aVolumes& v) {
  direct_volumes(L, m, scale, count, v);
}

void closed_form_hierarchical(const Cluster& cluster, const RankLayout& L, const TrafficView& t, double scale,
                              A2aVolumes& v) {
  if (L.railed_block() > 0)
    hierarchical_railed(L, t, scale, v);
  else
    hierarchical(cluster, L, t, scale, v);
}

CommResult all_to_all_closed_form(const Cluster& cluster, const RankLayout& L, TrafficView t,
                                  const AllToAllOptions& o) {
  const int leaves = static_cast<int>(cluster.leaves().size());
  if (L.network_only() != o.network_only)
    throw TopologyError("all-to-all closed form: the rank layout and the options disagree on network_only");
  A2aVolumes v(L.ranks, std::max(leaves, 1));
  o.algorithm->closed_form_volumes(cluster, L, t, o, v);
  return closed_form_result(cluster, L, v, o);
}

void A2aVolumes::copy_volumes(const A2aVolumes& o) {
  for (auto [a, b] :
       {std::pair{&up_send, &o.up_send}, std::pair{&up_recv, &o.up_recv}, std::pair{&out_send, &o.out_send},
        std::pair{&out_recv, &o.out_recv}, std::pair{&messages, &o.messages}, std::pair{&messages_in, &o.messages_in},
        std::pair{&leaf_up, &o.leaf_up}, std::pair{&leaf_down, &o.leaf_down}})
    *a = *b;
  any_up = o.any_up;
  any_out = o.any_out;
  any_cross_leaf = o.any_cross_leaf;
}

void A2aVolumes::add(const A2aVolumes& o, double times) {
  const auto sum = [times](std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() < b.size()) a.resize(b.size(), 0.0);
    if (times == 1.0) {
      for (std::size_t i = 0; i < b.size(); ++i) a[i] += b[i];
    } else {
      for (std::size_t i = 0; i < b.size(); ++i) a[i] += b[i] * times;
    }
  };
  for (auto [a, b] :
       {std::pair{&up_send, &o.up_send}, std::pair{&up_recv, &o.up_recv}, std::pair{&out_send, &o.out_send},
        std::pair{&out_recv, &o.out_recv}, std::pair{&messages, &o.messages}, std::pair{&messages_in, &o.messages_in},
        std::pair{&leaf_up, &o.leaf_up}, std::pair{&leaf_down, &o.leaf_down}})
    sum(*a, *b);
  any_up = any_up || o.any_up;
  any_out = any_out || o.any_out;
  any_cross_leaf = any_cross_leaf || o.any_cross_leaf;
}

void A2aVolumes::reset(int ranks, int leaves) {
  const auto n = static_cast<std::size_t>(ranks), l = static_cast<std::size_t>(leaves);
  for (auto* x : {&up_send, &up_recv, &out_send, &out_recv, &messages, &messages_in}) x->assign(n, 0.0);
  leaf_up.assign(l, 0.0);
  leaf_down.assign(l, 0.0);
  any_up = any_out = any_cross_leaf = false;
}

namespace {

// The terms after the worst link's utilisation: the longest route latency of the traffic's kinds
// and the busiest sender's (combine: receiver's) messages.
void finish_timing(const Cluster& cluster, const RankLayout& L, const A2aVolumes& v, const AllToAllOptions& o,
                   double worst, CommResult& r) {
  const bool combine = o.direction == Direction::kCombine;
  r.transfer_ns = worst * 1e9;
  r.latency_ns = 0;
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
  // A layer whose ranks send nothing launches no all-to-all.
  r.fixed_ns = v.any_up || v.any_out ? a2a_fixed_ns(cluster.config(), o, static_cast<int>(L.device.size())) : 0.0;
  r.duration_ns = r.transfer_ns + r.latency_ns + r.message_ns + r.fixed_ns;
}

}  // namespace

CommResult closed_form_result(const Cluster& cluster, const RankLayout& L, const A2aVolumes& v,
                              const AllToAllOptions& o) {
  CommResult r;
  closed_form_result(cluster, L, v, o, r);
  return r;
}

void closed_form_result(const Cluster& cluster, const RankLayout& L, const A2aVolumes& v, const AllToAllOptions& o,
                        CommResult& r) {
  const int leaves = static_cast<int>(cluster.leaves().size());
  const bool combine = o.direction == Direction::kCombine;
  {  // a fresh result in the old one's storage
    const auto links = static_cast<std::size_t>(cluster.num_links());
    std::vector<double> bytes = std::move(r.link_bytes);
    std::vector<int> loaded = std::move(r.loaded_links);
    if (r.links_listed && bytes.size() == links) {
      for (const int id : loaded) bytes[static_cast<std::size_t>(id)] = 0.0;
    } else {
      bytes.assign(links, 0.0);
    }
    loaded.clear();
    r = CommResult{};
    r.link_bytes = std::move(bytes);
    r.loaded_links = std::move(loaded);
  }
  r.links_listed = true;
  std::size_t bounding = 6 * static_cast<std::size_t>(L.ranks);  // six per rank, two per leaf uplink
  for (int l = 0; l < leaves; ++l) bounding += L.leaf_links(l).size();
  r.loaded_links.reserve(bounding);
  // Only the bounding links of the ranks' devices and the leaves carry anything: the worst
  // utilisation and the per-class maxima are taken over those alone.
  double worst = 0;
  auto load = [&](const RankLayout::BoundingLink& link, double bytes) {
    if (link.id < 0 || bytes <= 0) return;
    double& b = r.link_bytes[static_cast<std::size_t>(link.id)];
    if (b == 0) r.loaded_links.push_back(link.id);
    b += bytes;
    // A load below the worst so far by more than rounding can bridge (1e-9 relative, against a
    // few ulps) cannot reach it: no division for it.
    if (!(b < worst * link.capacity * (1 - 1e-9))) {
      const double u = b / link.capacity;
      if (u > worst || (u == worst && link.id < r.bottleneck_link)) worst = u, r.bottleneck_link = link.id;
    }
    if (link.cls == LinkClass::kScaleUp) r.max_scaleup_bytes = std::max(r.max_scaleup_bytes, b);
    if (link.cls == LinkClass::kScaleOut) r.max_scaleout_bytes = std::max(r.max_scaleout_bytes, b);
  };
  auto add = [&](const RankLayout::BoundingLink& out_link, const RankLayout::BoundingLink& in_link, double sent,
                 double received) {
    if (combine) std::swap(sent, received);
    load(out_link, sent);
    load(in_link, received);
  };
  for (int k = 0; k < L.ranks; ++k) {
    const auto i = static_cast<std::size_t>(k);
    const std::span<const RankLayout::BoundingLink> dl = L.rank_links(k);  // DeviceLinks order
    add(dl[0], dl[1], v.up_send[i], v.up_recv[i]);
    add(dl[2], dl[3], v.out_send[i], v.out_recv[i]);
    add(dl[4], dl[5], v.out_send[i], v.out_recv[i]);
  }
  for (int l = 0; l < leaves; ++l) {
    const std::span<const RankLayout::BoundingLink> ll = L.leaf_links(l);  // up, down per spine
    const double spines = static_cast<double>(ll.size() / 2);
    for (std::size_t s = 0; s + 1 < ll.size(); s += 2)
      add(ll[s], ll[s + 1], v.leaf_up[static_cast<std::size_t>(l)] / spines,
          v.leaf_down[static_cast<std::size_t>(l)] / spines);
  }
  finish_timing(cluster, L, v, o, worst, r);
  bottleneck_device(cluster, r);
}

void closed_form_timing(const Cluster& cluster, const RankLayout& L, const A2aVolumes& v, const AllToAllOptions& o,
                        CommResult& r) {
  if (!L.exclusive_links()) {
    closed_form_result(cluster, L, v, o, r);
    return;
  }
  const bool combine = o.direction == Direction::kCombine;
  r.link_bytes.clear();
  r.loaded_links.clear();
  r.links_listed = false;
  r.bottleneck_link = r.bottleneck_device = -1;
  r.max_scaleup_bytes = r.max_scaleout_bytes = 0;
  // Every link carries one volume: the worst utilisation is the largest of volume / capacity (the
  // same quotients closed_form_result divides, so the same maximum).
  double worst = 0;
  const auto load = [&](const RankLayout::BoundingLink& link, double bytes) {
    if (link.id < 0 || !(bytes > 0)) return;
    if (!(bytes < worst * link.capacity * (1 - 1e-9))) worst = std::max(worst, bytes / link.capacity);
  };
  for (int k = 0; k < L.ranks; ++k) {
    const auto i = static_cast<std::size_t>(k);
    const std::span<const RankLayout::BoundingLink> dl = L.rank_links(k);  // DeviceLinks order
    const double up_out = combine ? v.up_recv[i] : v.up_send[i], up_in = combine ? v.up_send[i] : v.up_recv[i];
    const double out = combine ? v.out_recv[i] : v.out_send[i], in = combine ? v.out_send[i] : v.out_recv[i];
    load(dl[0], up_out);
    load(dl[1], up_in);
    load(dl[2], out);
    load(dl[3], in);
    load(dl[4], out);
    load(dl[5], in);
  }
  const int leaves = static_cast<int>(cluster.leaves().size());
  for (int l = 0; l < leaves; ++l) {
    const std::span<const RankLayout::BoundingLink> ll = L.leaf_links(l);  // up, down per spine
    const double spines = static_cast<double>(ll.size() / 2);
    const double up = v.leaf_up[static_cast<std::size_t>(l)] / spines,
                 down = v.leaf_down[static_cast<std::size_t>(l)] / spines;
    for (std::size_t s = 0; s + 1 < ll.size(); s += 2) {
      load(ll[s], combine ? down : up);
      load(ll[s + 1], combine ? up : down);
    }
  }
  finish_timing(cluster, L, v, o, worst, r);
}

}  // namespace moesim::topology
