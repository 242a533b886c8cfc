#include "sim/step_model.h"

#include <algorithm>
#include <numeric>

#include "models/layer_ops.h"
#include "sim/check.h"
#include "sim/invariants.h"
#include "sim/lane_max.h"
#include "sim/tp_collective.h"
#include "topology/a2a_fixed.h"

namespace moesim::sim {

StepModel::StepModel(const models::ModelSpec& model, const InstanceLayout& deployment, const topology::Cluster& cluster,
                     const calibration::CostModel& cost, const workloads::RoutingModel& routing, OverlapConfig overlap)
    : model_(model),
      deployment_(deployment),
      cluster_(cluster),
      cost_(cost),
      overlap_(overlap),
      routing_(model, deployment.moe_view(), routing, cluster),
      exchange_(model, deployment, cluster, routing_.aggregated()),
      memo_(0, model.num_moe_layers()),
      timeline_(deployment.ranks()) {
  low_latency_ = exchange_.low_latency();
  attention_kinds_ = first_local_layer(model) >= 0 ? 2 : 1;
  for (int layer = deployment.first_layer(); layer < deployment.end_layer(); ++layer)
    ++stage_layers_of_kind_[local_attention_layer(model, layer) ? 1 : 0];
  MOESIM_CHECK(overlap.comm_sm_share >= 0 && overlap.comm_sm_share < 1, "comm_sm_share must lie in [0, 1)");
  // Interference while communication and computation overlap (sim/stream_timeline.h): a compute
  // kernel that runs beside an in-flight all-to-all has the SMs the communication kernels hold
  // taken from it; DeepEP's low-latency kernels hold none while their data is in flight.
  if (overlap.scheme != OverlapScheme::kNone && !low_latency_) compute_rate_while_comm_ = 1.0 - overlap.comm_sm_share;
  hbm_bytes_per_ns_ = cost.achievable_hbm_bytes_per_s() * 1e-9;
  timeline_.set_compute_rate_while_comm(compute_rate_while_comm_);
  // Engines that keep the communication kernels' SMs from the expert GEMMs for a whole two-batch
  // step (SGLang: configure_deep_gemm_num_sms around the overlapped forward) run those GEMMs on
  // the rest of the SMs, overlapped or not; they are then not slowed again beside an all-to-all.
  if (overlap.scheme == OverlapScheme::kTwoBatch && deployment.config().runtime.tbo_reserves_comm_sms && !low_latency_)
    gemm_rate_ = 1.0 - overlap.comm_sm_share;
  const int count = overlap.scheme == OverlapScheme::kTwoBatch ? 2 : 1;
  const auto ranks = static_cast<std::size_t>(deployment.ranks());
  micro_.resize(static_cast<std::size_t>(count));
  for (auto& mb : micro_) {
    mb.costs.resize(ranks);
    mb.tokens.resize(ranks);
    mb.ready.resize(ranks);
    mb.scratch.resize(ranks);
    mb.gemm_ns.resize(ranks);
    if (low_latency_)
      for (auto* v : {&mb.dispatch_send, &mb.combine_recv}) v->assign(ranks, 0.0);
  }
  init_parallel();
}

void StepModel::split(std::span<const RankBatch> batches) {
  MOESIM_CHECK(static_cast<int>(batches.size()) * attention_tp_ == deployment_.ranks(),
               "one batch per attention group expected");
  if (micro_.size() == 1) {
    cost_micro_batch(micro_[0], batches);
    token_phases(micro_[0]);
    return;
  }
  // Two micro-batches: alternate decode requests; give each prefill chunk to the lighter half.
  const std::size_t groups = batches.size();
  halves_.resize(2 * groups);
  for (std::size_t g = 0; g < groups; ++g) {
    const RankBatch& b = batches[g];
    RankBatch* h[2] = {&halves_[g], &halves_[groups + g]};
    for (auto* x : h) {
      x->clear();
      x->decode_queries = b.decode_queries;
    }
    // Even requests to the first half, odd ones to the second.
    const std::size_t n = b.decode_kv_lengths.size();
    h[0]->decode_kv_lengths.resize((n + 1) / 2);
    h[1]->decode_kv_lengths.resize(n / 2);
    const std::int64_t* from = b.decode_kv_lengths.data();
    std::int64_t *even = h[0]->decode_kv_lengths.data(), *odd = h[1]->decode_kv_lengths.data();
    for (std::size_t j = 0; j < n / 2; ++j) {
      even[j] = from[2 * j];
      odd[j] = from[2 * j + 1];
    }
    if (n % 2 == 1) even[n / 2] = from[n - 1];
    for (const auto& c : b.prefill_chunks) h[h[0]->tokens() <= h[1]->tokens() ? 0 : 1]->prefill_chunks.push_back(c);
    const std::int64_t prefill_samples = b.sampled_tokens - b.decode_tokens();
    h[0]->sampled_tokens = h[0]->decode_tokens() + (prefill_samples + 1) / 2;
    h[1]->sampled_tokens = h[1]->decode_tokens() + prefill_samples / 2;
    h[0]->padding = (b.padding + 1) / 2;
    h[1]->padding = b.padding / 2;
  }
  for (std::size_t m = 0; m < 2; ++m) {
    cost_micro_batch(micro_[m], std::span<const RankBatch>(halves_).subspan(m * groups, groups));
    token_phases(micro_[m]);
  }
}

void StepModel::token_phases(MicroBatch& mb) {
  if (!low_latency_) return;
  LowLatencyPhases p;
  for (std::size_t r = 0; r < mb.dispatch_send.size(); ++r) {
    low_latency_token_phases(model_, cost_, mb.tokens[r], exchange_.dispatch_bytes_per_token(),
                             exchange_.combine_bytes_per_token(), p);
    mb.dispatch_send[r] = p.dispatch_send;
    mb.combine_recv[r] = p.combine_recv;
  }
}

void StepModel::step_vectors(MicroBatch& mb) const {
  const std::size_t n = mb.costs.size();
  for (int k = 0; k < attention_kinds_; ++k) {
    auto& kind = mb.kinds[k];
    kind.prep.resize(n);
    kind.core.resize(n);
    kind.whole.resize(n);
    for (std::size_t r = 0; r < n; ++r) {
      const auto& c = mb.costs[r];
      kind.whole[r] = k == 0 ? c.attention : c.attention_local;
      kind.prep[r] = k == 0 ? c.attention_prep : c.attention_local_prep;
      kind.core[r] = std::max(0.0, kind.whole[r] - kind.prep[r]);
    }
    kind.slowest = std::max(0.0, max_of(kind.whole));
  }
  mb.router.resize(n);
  mb.shared_on_gemm_sms.resize(n);
  mb.dense_mlp.resize(n);
  double shared_slowest = 0;
  for (std::size_t r = 0; r < n; ++r) {
    const auto& c = mb.costs[r];
    mb.router[r] = c.router;
    mb.shared_on_gemm_sms[r] = c.shared / gemm_rate_;
    mb.dense_mlp[r] = c.dense_mlp;
    shared_slowest = std::max(shared_slowest, c.shared);
  }
  mb.shared_slowest = shared_slowest;
  mb.router_slowest = std::max(0.0, max_of(mb.router));
  mb.dense_mlp_slowest = std::max(0.0, max_of(mb.dense_mlp));
  // Router and shared expert as one op where the shared expert overlaps nothing.
  if (overlap_.scheme == OverlapScheme::kNone || gathered_moe_) {
    mb.router_shared.resize(n);
    for (std::size_t r = 0; r < n; ++r) mb.router_shared[r] = mb.costs[r].router + mb.costs[r].shared;
  }
  mb.dispatch_send_slowest = max_of(mb.dispatch_send);
  mb.combine_recv_slowest = max_of(mb.combine_recv);
}

void StepModel::finish_combine(MicroBatch& mb) {
  if (!mb.combine_recv_pending) return;
  mb.combine_recv_pending = false;
  timeline_.compute(mb.ready, mb.combine_recv, mb.ready,
                    {"combine_recv", layer_, static_cast<int>(&mb - micro_.data())});
}

void StepModel::run_dense_layer(MicroBatch& mb, PhaseTimes& phases) {
  finish_combine(mb);
  const int m = static_cast<int>(&mb - micro_.data());
  const auto& kind = mb.kinds[layer_local_];
  timeline_.compute(mb.ready, kind.whole, mb.ready, {"attention", layer_, m});
  phases[static_cast<int>(Phase::kAttention)] += kind.slowest;
  dense_mlp_after_attention(mb, phases);
}

void StepModel::dense_mlp_after_attention(MicroBatch& mb, PhaseTimes& phases) {
  const int m = static_cast<int>(&mb - micro_.data());
  if (attention_tp_ > 1) tp_collective(mb, mb.group_all_reduce, attention_tp_, phases, "tp_all_reduce");
  timeline_.compute(mb.ready, mb.dense_mlp, mb.ready, {"dense_mlp", layer_, m});
  if (attention_tp_ > 1) tp_collective(mb, mb.group_all_reduce, attention_tp_, phases, "tp_all_reduce");
  phases[static_cast<int>(Phase::kDenseMlp)] += mb.dense_mlp_slowest;
}

double StepModel::moe_front(MicroBatch& mb, int moe_layer, std::int64_t step, workloads::Rng& rng, PhaseTimes& phases,
                            LayerBreakdown& breakdown) {
  finish_combine(mb);
  const bool shared_in_front = overlap_.scheme == OverlapScheme::kNone;
  const int m = static_cast<int>(&mb - micro_.data());
  const auto& kind = mb.kinds[layer_local_];
  timeline_.compute(mb.ready, kind.whole, mb.ready, {"attention", layer_, m});
  if (attention_tp_ > 1) tp_collective(mb, mb.group_reduce_scatter, attention_tp_, phases, "tp_reduce_scatter");
  if (shared_in_front)
    timeline_.compute(mb.ready, mb.router_shared, mb.ready, {"router+shared_expert", layer_, m});
  else
    timeline_.compute(mb.ready, mb.router, mb.ready, {"router", layer_, m});
  phases[static_cast<int>(Phase::kAttention)] += kind.slowest;
  phases[static_cast<int>(Phase::kRouter)] += mb.router_slowest;
  phases[static_cast<int>(Phase::kSharedExpert)] += mb.shared_slowest;
  route(mb, moe_layer, step, rng, phases, breakdown);
  return issue_dispatch(mb, !shared_in_front);
}

void StepModel::route(MicroBatch& mb, int moe_layer, std::int64_t step, workloads::Rng& rng, PhaseTimes& phases,
                      LayerBreakdown& breakdown) {
  RouteOutcome* kept = nullptr;
  if (memo_.enabled() && !exchange_.uses_gather_scatter()) {
    std::optional<RouteMemo::Law> law;
    if (!share_draws_) {
      if (const auto version = routing_.law_version(moe_layer, step)) law = RouteMemo::Law{moe_layer, *version, 1};
    } else if (const auto shared = routing_.shared_law(moe_layer, step)) {
      law = RouteMemo::Law{shared->leader, shared->version, shared->layers};
    }
    if (law) {
      if (RouteOutcome* o = memo_.find(*law, mb.tokens, mb.tokens_fingerprint, rng)) {
        // A kept draw of the same law and tokens: its loads count as a fresh draw's would. A
        // shared pool keeps its slots in canonical order: this layer's experts are read from it.
        std::span<const std::int64_t> experts = o->expert_counts;
        if (share_draws_ && !routing_.observes()) {
          // Only the statistics read them, as a total: summed in canonical order, read back at
          // the end (settle_load_stats).
          if (load_) {
            routing_.add_replayed(moe_layer, o->canonical_slots);
            load_->add_rank_pairs(load_instance_, step_start_ns_, o->rank_pairs);
          }
        } else {
          if (share_draws_) {
            replay_experts_.resize(static_cast<std::size_t>(model_.routed_experts));
            routing_.canonical_expert_counts(moe_layer, o->canonical_slots, replay_experts_);
            experts = replay_experts_;
          }
          if (load_) load_->add_routing(load_instance_, step_start_ns_, moe_layer, experts, o->rank_pairs);
          routing_.observe(moe_layer, experts);
        }
        exchange_.replay(o->links);
        apply_route(mb, *o, phases, breakdown);
        return;
      }
      kept = &memo_.keep();
      exchange_.settle(kept->links);  // the draw it held may have replays to book
    }
  }
  RouteOutcome& out = kept ? *kept : mb.own;
  keep_views_off(mb, out);
  routing_.draw(moe_layer, step, mb.tokens, rng);
  // Each rank's pairs (its slots' counts summed): its low-latency phases, the load statistics.
  out.rank_pairs.resize(routing_.slot_counts().size() / static_cast<std::size_t>(routing_.slots_per_rank()));
  for (std::size_t r = 0; r < out.rank_pairs.size(); ++r) {
    const auto local = routing_.local_counts(static_cast<int>(r));
    out.rank_pairs[r] = std::accumulate(local.begin(), local.end(), std::int64_t{0});
  }
  if (load_) load_->add_routing(load_instance_, step_start_ns_, moe_layer, routing_.expert_counts(), out.rank_pairs);
  check_layer_pairs(moe_layer, routing_.total_pairs(), routing_.total_received());
  const bool gathered = exchange_.uses_gather_scatter();
  out.exchange =
      gathered ? exchange_.gather_scatter(mb.tokens) : exchange_.all_to_all(routing_, kept ? &out.links : nullptr);
  out.gemm_ns.resize(mb.gemm_ns.size());
  expert_gemm_times(model_, cost_, routing_.slot_counts(), static_cast<std::size_t>(routing_.slots_per_rank()),
                    out.gemm_ns, cost_scratch_);
  out.gemm_max = max_of(out.gemm_ns);
  if (low_latency_) {
    // The phases over the ranks' own tokens were costed with the step (token_phases).
    out.dispatch_recv.resize(out.rank_pairs.size());
    out.combine_send.resize(out.rank_pairs.size());
    low_latency_pair_phase_times(cost_, out.rank_pairs, exchange_.dispatch_bytes_per_token(),
                                 exchange_.combine_bytes_per_token(), out.dispatch_recv, out.combine_send,
                                 cost_scratch_);
    out.dispatch_recv_max = max_of(out.dispatch_recv);
    out.combine_send_max = max_of(out.combine_send);
  }
  out.total_pairs = routing_.total_pairs();
  out.total_received = routing_.total_received();
  if (kept && share_draws_) {
    routing_.canonical_slots(out.canonical_slots);
  } else if (kept) {
    const auto experts = routing_.expert_counts();
    out.expert_counts.assign(experts.begin(), experts.end());
  }
  apply_route(mb, out, phases, breakdown);
}

void StepModel::apply_route(MicroBatch& mb, const RouteOutcome& o, PhaseTimes& phases, LayerBreakdown& breakdown) {
  mb.dispatch_ns = o.exchange.dispatch_ns;
  mb.combine_ns = o.exchange.combine_ns;
  // Read in place (MicroBatch::gemm): the outcome stays as it is until this micro-batch's
  // expert half, or keep_views_off() copies it first.
  mb.gemm = o.gemm_ns;
  mb.dispatch_recv = o.dispatch_recv;
  mb.combine_send = o.combine_send;
  mb.gemm_max = o.gemm_max;
  mb.dispatch_recv_max = o.dispatch_recv_max;
  mb.combine_send_max = o.combine_send_max;
  const double dispatch_bytes = o.exchange.fabric_tokens * exchange_.dispatch_bytes_per_token();
  if (exchange_.uses_gather_scatter()) {
    phases[static_cast<int>(Phase::kDispatch)] += mb.dispatch_ns;
  } else {
    phases[static_cast<int>(Phase::kDispatch)] += mb.dispatch_send_slowest + mb.dispatch_ns;
    mb.comm_rate = comm_rate_while_compute(dispatch_bytes, mb.dispatch_ns);
  }
  breakdown.dispatch_bytes += dispatch_bytes;
  breakdown.combine_bytes += o.exchange.fabric_tokens * exchange_.combine_bytes_per_token();
  breakdown.tokens_routed += o.total_pairs;
  breakdown.tokens_combined += o.total_received;
}

// An all-to-all's copies read every byte at its sender and write it at its receiver (and again at
// the forwarder, hierarchically) through HBM, which the compute kernels beside it also stream:
// when they are memory-bound the two share the bandwidth in proportion to their demands, so the
// transfer progresses at 1 / (1 + its own share of HBM). Compute-bound neighbours leave HBM idle
// enough that this bound is the worst case (docs/architecture.md, "Overlap").
double StepModel::comm_rate_while_compute(double fabric_bytes, double duration_ns) const {
  if (hbm_bytes_per_ns_ <= 0 || duration_ns <= 0 || overlap_.scheme == OverlapScheme::kNone) return 1.0;
  const double per_rank = fabric_bytes / std::max(1, deployment_.ranks());
  const double share = exchange_.hbm_passes() * per_rank / duration_ns / hbm_bytes_per_ns_;
  return 1.0 / (1.0 + share);
}

double StepModel::issue_dispatch(MicroBatch& mb, bool shared_during_dispatch) {
  const int m = static_cast<int>(&mb - micro_.data());
  if (low_latency_) timeline_.compute(mb.ready, mb.dispatch_send, mb.ready, {"dispatch_send", layer_, m});
  const double dispatch_end = timeline_.collective(mb.ready, mb.dispatch_ns, {"dispatch", layer_, m}, mb.comm_rate);
  if (shared_during_dispatch && model_.shared_experts > 0) {
    // The shared expert runs on the compute stream while the dispatch is in flight.
    timeline_.compute(mb.ready, mb.shared_on_gemm_sms, mb.scratch, {"shared_expert", layer_, m, gemm_rate_ < 1.0});
  }
  return dispatch_end;
}

Duration StepModel::rebalance() {
  const auto moved = routing_.rebalance();
  std::int64_t worst = 0;
  for (auto m : moved) worst = std::max(worst, m);
  // Each rank fetches its new experts' weights from peers over its NIC before the next step.
  const double bytes = static_cast<double>(worst) * static_cast<double>(models::expert_params(model_)) *
                       models::bytes_per_element(model_.expert_dtype());
  return Duration::from_ns_rounded(bytes / cluster_.effective_nic_bytes_per_s(deployment_.rank_devices().front()) *
                                   1e9);
}

void StepModel::moe_back(MicroBatch& mb, double dispatch_end, PhaseTimes& phases) {
  expert_half(mb, dispatch_end, phases);
  if (attention_tp_ > 1) tp_collective(mb, mb.group_all_gather, attention_tp_, phases, "tp_all_gather");
}

void StepModel::expert_half(MicroBatch& mb, double dispatch_end, PhaseTimes& phases) {
  const int m = static_cast<int>(&mb - micro_.data());
  std::fill(mb.ready.begin(), mb.ready.end(), dispatch_end);
  StreamTimeline::ChainOp gemm{mb.gemm, {"expert_gemm", layer_, m}};  // x / 1 is x
  if (gemm_rate_ < 1.0) {
    for (std::size_t r = 0; r < mb.scratch.size(); ++r) mb.scratch[r] = mb.gemm[r] / gemm_rate_;
    gemm = {mb.scratch, {"expert_gemm", layer_, m, true}};
  }
  if (low_latency_) {
    // Receive, GEMMs and send back to back on the compute stream.
    const StreamTimeline::ChainOp ops[] = {
        {mb.dispatch_recv, {"dispatch_recv", layer_, m}}, gemm, {mb.combine_send, {"combine_send", layer_, m}}};
    timeline_.compute_chain(mb.ready, ops, mb.ready);
  } else {
    timeline_.compute(mb.ready, gemm.duration, mb.ready, gemm.label);
  }
  const double combine_end = timeline_.collective(mb.ready, mb.combine_ns, {"combine", layer_, m}, mb.comm_rate);
  std::fill(mb.ready.begin(), mb.ready.end(), combine_end);
  // The combine's receive runs when this micro-batch next needs the compute stream, so the other
  // micro-batch's work queued meanwhile is not held behind this transfer (two-batch overlap).
  mb.combine_recv_pending = low_latency_;
  phases[static_cast<int>(Phase::kExpertGemm)] += mb.gemm_max;
  phases[static_cast<int>(Phase::kDispatch)] += mb.dispatch_recv_max;
  phases[static_cast<int>(Phase::kCombine)] += mb.combine_send_max + mb.combine_ns + mb.combine_recv_slowest;
}

void StepModel::keep_views_off(const MicroBatch& writer, const RouteOutcome& outcome) {
  const auto copy_if_on = [](std::span<const double>& view, const std::vector<double>& written,
                             std::vector<double>& own) {
    if (view.empty() || view.data() != written.data()) return;
    own.assign(view.begin(), view.end());
    view = own;
  };
  for (MicroBatch& mb : micro_) {
    if (&mb == &writer) continue;  // it writes only its own outcome or the memo's
    copy_if_on(mb.gemm, outcome.gemm_ns, mb.own.gemm_ns);
    copy_if_on(mb.dispatch_recv, outcome.dispatch_recv, mb.own.dispatch_recv);
    copy_if_on(mb.combine_send, outcome.combine_send, mb.own.combine_send);
  }
}

void StepModel::set_reuse_draws(int draws, bool share) {
  memo_ = RouteMemo(draws, model_.num_moe_layers());
  share_draws_ = share;
}

void StepModel::settle_load_stats() {
  if (load_ && share_draws_) {
    replay_experts_.resize(static_cast<std::size_t>(model_.routed_experts));
    for (int l = 0; l < model_.num_moe_layers(); ++l) {
      std::fill(replay_experts_.begin(), replay_experts_.end(), 0);
      routing_.take_replayed(l, replay_experts_);
      load_->add_expert_counts(l, replay_experts_);
    }
  }
  memo_.for_each_outcome([this](RouteOutcome& o) { exchange_.settle(o.links); });
  exchange_.book_step_links();  // the volumes settled into the step's
}

void StepModel::set_load_stats(LoadStats* stats, int instance) {
  load_ = stats;
  load_instance_ = instance;
  exchange_.set_load_stats(stats);
}

void StepModel::set_trace(TraceRecorder* recorder, int pool, int instance) {
  recorder_ = recorder;
  trace_pool_ = pool;
  trace_instance_ = instance;
}

// Every layer in turn, both micro-batches' attention halves before their expert halves.
void StepModel::run_layers(std::int64_t step, workloads::Rng& rng, LayerBreakdown& breakdown) {
  layer_clock_.begin(timeline_, deployment_.ranks());
  int moe_index = moe_layers_before_stage();
  const auto end_layer = static_cast<std::size_t>(deployment_.end_layer());
  for (auto layer = static_cast<std::size_t>(deployment_.first_layer()); layer < end_layer; ++layer) {
    set_layer(static_cast<int>(layer));
    auto& phases = breakdown.layer_ns[layer];
    if (!model_.is_moe_layer(static_cast<int>(layer))) {
      for (auto& mb : micro_) run_dense_layer(mb, phases);
    } else if (gathered_moe_) {
      for (auto& mb : micro_) run_gathered_moe_layer(mb, moe_index, step, rng, phases, breakdown);
      ++moe_index;
    } else {
      dispatch_end_.resize(micro_.size());
      for (std::size_t m = 0; m < micro_.size(); ++m)
        dispatch_end_[m] = moe_front(micro_[m], moe_index, step, rng, phases, breakdown);
      for (std::size_t m = 0; m < micro_.size(); ++m) moe_back(micro_[m], dispatch_end_[m], phases);
      ++moe_index;
    }
    close_layer(static_cast<int>(layer), breakdown);
  }
}

int StepModel::moe_layers_before_stage() const {
  int n = 0;
  for (int l = 0; l < deployment_.first_layer(); ++l) n += model_.is_moe_layer(l) ? 1 : 0;
  return n;
}

void StepModel::close_layer(int layer, LayerBreakdown& breakdown) {
  double layer_end = 0;
  for (const auto& mb : micro_) layer_end = std::max(layer_end, max_of(mb.ready));
  layer_clock_.end(layer, layer_end, timeline_, breakdown);
}

Duration StepModel::prepare(std::span<const RankBatch> batches, Time start, LayerBreakdown& breakdown) {
  breakdown.size_for(model_.num_layers);
  step_start_ns_ = start.count_ns();
  step_batches_ = batches;
  if (load_) load_->begin_step(load_instance_, step_start_ns_);
  split(batches);
  for (auto& mb : micro_) step_vectors(mb);
  if (memo_.enabled())
    for (auto& mb : micro_) mb.tokens_fingerprint = RouteMemo::fingerprint(mb.tokens);
  // Each rank's attention over the stage's layers, summed over the micro-batches.
  double slowest = 0;
  const std::size_t ranks = micro_.empty() ? 0 : micro_.front().kinds[0].whole.size();
  for (std::size_t r = 0; r < ranks; ++r) {
    double sum = 0;
    for (const auto& mb : micro_)
      for (int k = 0; k < attention_kinds_; ++k) sum += mb.kinds[k].whole[r] * stage_layers_of_kind_[k];
    slowest = std::max(slowest, sum);
  }
  // Floored with a margin for the rounding of summing in another order than the timeline does.
  return Duration::ns(std::max<std::int64_t>(0, static_cast<std::int64_t>(slowest * (1 - 1e-9)) - 1));
}

Duration StepModel::execute(std::int64_t step, workloads::Rng& rng, LayerBreakdown& breakdown) {
  const std::span<const RankBatch> batches = step_batches_;
  const Time start = Time::from_ns(step_start_ns_);
  timeline_.reset();
  timeline_.trace_into(recorder_ && recorder_->wants_step(step) ? recorder_ : nullptr, trace_pool_, trace_instance_,
                       start.count_ns(), deployment_.stage() * deployment_.ranks());
  for (auto& mb : micro_) {
    std::fill(mb.ready.begin(), mb.ready.end(), 0.0);
    mb.combine_recv_pending = false;
  }

  if (decode_schedule(batches))
    run_decode_layers(step, rng, breakdown);
  else
    run_layers(step, rng, breakdown);
  double lm = 0;
  for (auto& mb : micro_) finish_combine(mb);
  for (auto& mb : micro_) {
    if (!deployment_.last_stage()) break;  // the LM head sits on the last pipeline stage
    for (std::size_t r = 0; r < mb.scratch.size(); ++r) {
      mb.scratch[r] = mb.costs[r].lm_head;
      lm = std::max(lm, mb.costs[r].lm_head);
    }
    timeline_.compute(mb.ready, mb.scratch, mb.ready, {"lm_head", -1, static_cast<int>(&mb - micro_.data())});
  }
  breakdown.lm_head_ns += lm;
  exchange_.book_step_links();
  return Duration::from_ns_rounded(timeline_.finish());
}

}  // namespace moesim::sim
