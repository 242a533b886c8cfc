#include "sim/afd_step.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "models/layer_ops.h"
#include "sim/check.h"
#include "sim/invariants.h"

namespace moesim::sim {

PoolLayout afd_expert_pool(const PoolLayout& pool) {
  PoolLayout e = pool;
  const int m = pool.config.attention_ranks(), n = pool.config.expert_ranks();
  e.config.afd = AfdConfig{};
  e.config.ranks = n;
  e.config.attention_dp = n;
  e.config.attention_tp = 1;
  for (auto& devices : e.instance_devices) devices.erase(devices.begin(), devices.begin() + m);
  return e;
}

AfdStep::AfdStep(const models::ModelSpec& model, const PoolLayout& pool, int instance, const topology::Cluster& cluster,
                 const calibration::CostModel& cost, const workloads::RoutingModel& routing)
    : model_(model),
      cluster_(cluster),
      cost_(cost),
      experts_pool_(afd_expert_pool(pool)),
      experts_(experts_pool_, instance),
      routing_(model, experts_, routing, cluster),
      devices_(pool.instance_devices[static_cast<std::size_t>(instance)]),
      attention_ranks_(pool.config.attention_ranks()),
      expert_ranks_(pool.config.expert_ranks()),
      micro_batches_(pool.config.afd.micro_batches),
      low_latency_(pool.config.comm.low_latency()),
      dispatch_bytes_per_token_(models::dispatch_bytes_per_token(model, pool.config.comm.dispatch_payload)),
      combine_bytes_per_token_(models::combine_bytes_per_token(model)) {
  MOESIM_CHECK(pool.config.afd.enabled() && !pool.config.comm.gather_scatter(), "AfdStep needs an afd pool");
  for (auto* o : {&dispatch_options_, &combine_options_}) {
    o->algorithm = pool.config.comm.all_to_all;
    o->fidelity = pool.config.comm.fidelity;
    o->network_only = pool.config.comm.network_only();
  }
  dispatch_options_.direction = topology::Direction::kDispatch;
  dispatch_options_.scale = dispatch_bytes_per_token_;
  combine_options_.direction = topology::Direction::kCombine;
  combine_options_.scale = combine_bytes_per_token_;
  const int all = attention_ranks_ + expert_ranks_;
  traffic_.pair_bytes = topology::TrafficMatrix(all);
  traffic_.expert_bytes = topology::TrafficMatrix(all);
  const auto n = static_cast<std::size_t>(expert_ranks_);
  received_.resize(n);
  spread_.resize(n);
  expert_ns_.resize(n);
  dispatch_recv_.resize(n);
  combine_send_.resize(n);
}

void AfdStep::set_trace(TraceRecorder* recorder, int pool, int instance) {
  recorder_ = recorder;
  trace_pool_ = pool;
  trace_instance_ = instance;
}

void AfdStep::set_load_stats(LoadStats* stats, int instance) {
  load_ = stats;
  load_instance_ = instance;
}

void AfdStep::trace(int rank, bool comm, const char* name, int layer, std::size_t b, double start, double duration) {
  if (!tracing_ || !recorder_->wants_rank(rank)) return;
  TraceEvent e;
  e.pool = static_cast<std::int16_t>(trace_pool_);
  e.instance = static_cast<std::int16_t>(trace_instance_);
  e.rank = rank;
  e.comm = comm;
  e.name = name;
  e.layer = layer;
  e.micro_batch = static_cast<std::int8_t>(b);
  e.start_ns = step_start_ns_ + std::llround(start);
  e.duration_ns = std::llround(duration);
  recorder_->add(e);
}

void AfdStep::draw_layer(int moe_layer, std::size_t b, std::int64_t step, workloads::Rng& rng,
                         LayerBreakdown& breakdown) {
  const auto M = static_cast<std::size_t>(attention_ranks_), N = static_cast<std::size_t>(expert_ranks_);
  const std::int64_t total = total_[b];
  // The micro-batch's tokens as the expert ranks' sources, spread evenly.
  const auto n = static_cast<std::int64_t>(N);
  for (std::size_t j = 0; j < N; ++j) spread_[j] = total / n + (static_cast<std::int64_t>(j) < total % n ? 1 : 0);
  routing_.draw(moe_layer, step, spread_, rng);
  const std::int64_t pairs = routing_.total_pairs();
  check_layer_pairs(moe_layer, pairs, routing_.total_received());
  expert_gemm_times(model_, cost_, routing_.slot_counts(), static_cast<std::size_t>(routing_.slots_per_rank()),
                    expert_ns_, gemm_scratch_);
  std::int64_t processed = 0;
  for (std::size_t j = 0; j < N; ++j) {
    const auto local = routing_.local_counts(static_cast<int>(j));
    received_[j] = std::accumulate(local.begin(), local.end(), std::int64_t{0});
    processed += received_[j];
  }
  if (load_) load_->add_routing(load_instance_, step_start_ns_, moe_layer, routing_.expert_counts(), received_);
  if (low_latency_)
    low_latency_pair_phase_times(cost_, received_, dispatch_bytes_per_token_, combine_bytes_per_token_, dispatch_recv_,
                                 combine_send_, ll_scratch_);
  // M2N traffic from each attention rank to each expert rank (see the header).
  const int k = model_.top_k;
  const double inv_n = 1.0 / static_cast<double>(N);
  double rows_sent = 0;
  for (std::size_t i = 0; i < M; ++i) {
    const auto t = static_cast<double>(tokens_[b * M + i]);
    for (std::size_t j = 0; j < N; ++j) {
      const double q = pairs > 0 ? static_cast<double>(received_[j]) / static_cast<double>(pairs) : 0.0;
      const auto dst = static_cast<int>(M + j);
      traffic_.expert_bytes.at(static_cast<int>(i), dst) = t * (k * q + inv_n);
      traffic_.pair_bytes.at(static_cast<int>(i), dst) = t * (1.0 - std::pow(1.0 - q, k) * (1.0 - inv_n));
      rows_sent += t * (k * q + inv_n);
    }
  }
  // Conservation: every attention rank sends each token's k pairs and its shared row, and the
  // expert ranks process exactly the pairs drawn plus one shared row per token.
  const std::int64_t shared_rows = total;
  MOESIM_CHECK(std::llround(rows_sent) == total * (k + 1) && processed == pairs && pairs == total * k,
               "afd: the M2N rows do not match the tokens routed and processed");
  breakdown.afd_rows_sent += std::llround(rows_sent);
  breakdown.afd_rows_processed += processed + shared_rows;
  breakdown.tokens_routed += pairs;
  breakdown.tokens_combined += processed;
  const topology::CommResult d = topology::all_to_all(cluster_, devices_, traffic_, dispatch_options_);
  const topology::CommResult c = topology::all_to_all(cluster_, devices_, traffic_, combine_options_);
  dispatch_ns_ = d.duration_ns;
  combine_ns_ = c.duration_ns;
  // The N2M returns to each attention rank the rows it sent (reversed flows of the same matrix).
  double rows_back = 0;
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j)
      rows_back += traffic_.expert_bytes.at(static_cast<int>(i), static_cast<int>(M + j));
  breakdown.afd_rows_returned += std::llround(rows_back);
  const auto wire = [](const topology::CommResult& r) {
    double bytes = 0;
    for (const double x : r.link_bytes) bytes += x;
    return bytes;
  };
  breakdown.dispatch_bytes += wire(d);
  breakdown.combine_bytes += wire(c);
  if (load_) {
    load_->add_links(d);
    load_->add_links(c);
  }
}

double AfdStep::uncovered(double from, double to, std::size_t& cursor) const {
  double covered = 0;
  while (cursor < busy_.size() && busy_[cursor].end <= from) ++cursor;
  for (std::size_t i = cursor; i < busy_.size() && busy_[i].start < to; ++i)
    covered += std::min(to, busy_[i].end) - std::max(from, busy_[i].start);
  return std::max(0.0, (to - from) - covered);
}

Duration AfdStep::run(std::span<const RankBatch> batches, std::int64_t step, workloads::Rng& rng,
                      LayerBreakdown& breakdown, Time start) {
  const auto M = static_cast<std::size_t>(attention_ranks_), N = static_cast<std::size_t>(expert_ranks_);
  MOESIM_CHECK(batches.size() == M, "afd: one batch per attention rank");
  breakdown.size_for(model_.num_layers);
  step_start_ns_ = start.count_ns();
  tracing_ = recorder_ != nullptr && recorder_->wants_step(step);
  if (load_) load_->begin_step(load_instance_, step_start_ns_);
  const auto mbs = static_cast<std::size_t>(micro_batches_);
  split_micro_batches(batches, mbs, micro_);
  for (std::size_t g = 0; g < M; ++g) {  // CUDA-graph padding rows, spread like decode requests
    const std::int64_t pad = batches[g].padding, per = pad / static_cast<std::int64_t>(mbs);
    for (std::size_t b = 0; b < mbs; ++b)
      micro_[b * M + g].padding = per + (static_cast<std::int64_t>(b) < pad % static_cast<std::int64_t>(mbs) ? 1 : 0);
  }
  costs_.resize(mbs * M);
  tokens_.resize(mbs * M);
  total_.assign(mbs, 0);
  ll_.assign(mbs * M, LowLatencyPhases{});
  shared_ns_.resize(mbs * N);
  std::vector<std::size_t> active;
  for (std::size_t b = 0; b < mbs; ++b) {
    bool work = false;
    for (std::size_t r = 0; r < M; ++r) {
      const RankBatch& rb = micro_[b * M + r];
      costs_[b * M + r] = memo_(model_, cost_, rb);
      tokens_[b * M + r] = rb.tokens();
      total_[b] += rb.tokens();
      work = work || rb.tokens() > 0 || rb.padding > 0;
      if (low_latency_)
        low_latency_token_phases(model_, cost_, rb.tokens(), dispatch_bytes_per_token_, combine_bytes_per_token_,
                                 ll_[b * M + r]);
    }
    if (!work) continue;
    active.push_back(b);
    for (std::size_t j = 0; j < N; ++j) {
      const std::int64_t rows = total_[b] / static_cast<std::int64_t>(N) +
                                (static_cast<std::int64_t>(j) < total_[b] % static_cast<std::int64_t>(N) ? 1 : 0);
      shared_ns_[b * N + j] = rows > 0 ? token_costs(model_, cost_, rows, rows, 0, RankCostShape{}).shared : 0.0;
    }
  }
  std::vector<double> attn_free(M, 0.0), expert_free(N, 0.0), ready(mbs, 0.0);
  std::vector<char> combine_pending(mbs, 0);  // its last N2M's receive kernel is still to run
  double m2n_free = 0, n2m_free = 0, attention_busy = 0, expert_busy = 0;
  busy_.clear();
  std::vector<double> layer_end;
  layer_end.reserve(static_cast<std::size_t>(model_.num_layers));
  int moe_layer = 0;
  for (int l = 0; l < model_.num_layers; ++l) {
    const bool moe = model_.is_moe_layer(l);
    const bool local = model_.attention_window(l) > 0 || model_.is_linear_layer(l);
    PhaseTimes phases{};
    for (const std::size_t b : active) {
      // Attention half (with the dense MLP in a dense layer) on every attention rank.
      double a_start = std::numeric_limits<double>::max(), a_end = 0, attn = 0, extra = 0;
      for (std::size_t r = 0; r < M; ++r) {
        const RankCosts& c = costs_[b * M + r];
        const LowLatencyPhases& p = ll_[b * M + r];
        const double recv = combine_pending[b] ? p.combine_recv : 0.0;
        const double a = (local ? c.attention_local : c.attention);
        const double x = moe ? c.router + p.dispatch_send : c.dense_mlp;
        const double s = std::max(attn_free[r], ready[b]);
        attn_free[r] = s + recv + a + x;
        attention_busy += recv + a + x;
        a_start = std::min(a_start, s);
        a_end = std::max(a_end, attn_free[r]);
        attn = std::max(attn, a + recv);
        extra = std::max(extra, x);
        trace(static_cast<int>(r), false, moe ? "attention+router" : "attention+mlp", l, b, s, recv + a + x);
      }
      combine_pending[b] = 0;
      busy_.push_back({a_start, a_end});
      phases[static_cast<std::size_t>(Phase::kAttention)] += attn;
      phases[static_cast<std::size_t>(moe ? Phase::kRouter : Phase::kDenseMlp)] += extra;
      if (!moe) {
        ready[b] = a_end;
        continue;
      }
      draw_layer(moe_layer, b, step, rng, breakdown);
      const double d_start = std::max(a_end, m2n_free), d_end = d_start + dispatch_ns_;
      m2n_free = d_end;
      trace(0, true, "m2n", l, b, d_start, dispatch_ns_);
      double e_start = std::numeric_limits<double>::max(), e_end = 0, gemm = 0, shared = 0;
      for (std::size_t j = 0; j < N; ++j) {
        const double g = expert_ns_[j] + (low_latency_ ? dispatch_recv_[j] + combine_send_[j] : 0.0);
        const double sh = shared_ns_[b * N + j];
        const double s = std::max(expert_free[j], d_end);
        expert_free[j] = s + g + sh;
        expert_busy += g + sh;
        e_start = std::min(e_start, s);
        e_end = std::max(e_end, expert_free[j]);
        gemm = std::max(gemm, g);
        shared = std::max(shared, sh);
        trace(static_cast<int>(M + j), false, "experts", l, b, s, g + sh);
      }
      busy_.push_back({e_start, e_end});
      const double c_start = std::max(e_end, n2m_free), c_end = c_start + combine_ns_;
      n2m_free = c_end;
      trace(static_cast<int>(M), true, "n2m", l, b, c_start, combine_ns_);
      ready[b] = c_end;
      combine_pending[b] = low_latency_ ? 1 : 0;
      phases[static_cast<std::size_t>(Phase::kDispatch)] += dispatch_ns_;
      phases[static_cast<std::size_t>(Phase::kExpertGemm)] += gemm;
      phases[static_cast<std::size_t>(Phase::kSharedExpert)] += shared;
      phases[static_cast<std::size_t>(Phase::kCombine)] += combine_ns_;
    }
    if (moe) ++moe_layer;
    double end = layer_end.empty() ? 0.0 : layer_end.back();
    for (const std::size_t b : active) end = std::max(end, ready[b]);
    layer_end.push_back(end);
    auto& row = breakdown.layer_ns[static_cast<std::size_t>(l)];
    for (std::size_t p = 0; p < row.size(); ++p) row[p] += phases[p];
  }
  // The LM head on the attention ranks, after each micro-batch's last layer.
  double step_end = layer_end.empty() ? 0.0 : layer_end.back(), lm = 0;
  for (const std::size_t b : active)
    for (std::size_t r = 0; r < M; ++r) {
      const double recv = combine_pending[b] ? ll_[b * M + r].combine_recv : 0.0;
      const double d = recv + costs_[b * M + r].lm_head;
      const double s = std::max(attn_free[r], ready[b]);
      attn_free[r] = s + d;
      attention_busy += d;
      step_end = std::max(step_end, attn_free[r]);
      lm = std::max(lm, d);
      busy_.push_back({s, s + d});
      trace(static_cast<int>(r), false, "lm_head", -1, b, s, d);
    }
  breakdown.lm_head_ns += lm;
  // Per layer: its wall time and the part of it in which neither side computed.
  std::sort(busy_.begin(), busy_.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  std::size_t merged = 0;
  for (const Span& s : busy_) {
    if (merged > 0 && s.start <= busy_[merged - 1].end)
      busy_[merged - 1].end = std::max(busy_[merged - 1].end, s.end);
    else
      busy_[merged++] = s;
  }
  busy_.resize(merged);
  std::size_t cursor = 0;
  double from = 0;
  for (std::size_t l = 0; l < layer_end.size(); ++l) {
    breakdown.wall_ns[l] += layer_end[l] - from;
    breakdown.exposed_comm_ns[l] += uncovered(from, layer_end[l], cursor);
    from = layer_end[l];
  }
  breakdown.afd_attention_busy_ns += attention_busy;
  breakdown.afd_expert_busy_ns += expert_busy;
  breakdown.afd_span_ns += step_end;
  return Duration::from_ns_rounded(step_end);
}

}  // namespace moesim::sim
