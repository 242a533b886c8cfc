#include "sim/moe_exchange.h"

#include <algorithm>

#include "models/layer_ops.h"
#include "sim/check.h"
#include "sim/tp_collective.h"
#include "topology/a2a_fixed.h"

namespace moesim::sim {

MoeExchange::MoeExchange(const models::ModelSpec& model, const InstanceLayout& layout, const topology::Cluster& cluster,
                         bool aggregated)
    : cluster_(cluster), devices_(layout.rank_devices()), fidelity_(layout.config().comm.fidelity) {
  const MoeCommConfig& comm = layout.config().comm;
  gather_scatter_ = comm.gather_scatter();
  // AllGather + ReduceScatter: the options keep their default algorithm, which nothing costs.
  if (!gather_scatter_) dispatch_options_.algorithm = combine_options_.algorithm = comm.all_to_all;
  dispatch_options_.fidelity = combine_options_.fidelity = comm.fidelity;
  dispatch_options_.network_only = combine_options_.network_only = comm.network_only();
  dispatch_options_.direction = topology::Direction::kDispatch;
  dispatch_options_.scale = models::dispatch_bytes_per_token(model, comm.dispatch_payload);
  combine_options_.direction = topology::Direction::kCombine;
  combine_options_.scale = models::combine_bytes_per_token(model);
  combine_mirrors_dispatch_ = dispatch_options_.fidelity->closed_form() && dispatch_options_.scale > 0;
  low_latency_ = comm.low_latency();
  hbm_passes_ = dispatch_options_.algorithm->hbm_passes();
  combine_fixed_ns_ = topology::a2a_fixed_ns(cluster.config(), combine_options_, layout.ep());
  if (aggregated) aggregated_.emplace(cluster, devices_);
}

ExchangeTimes MoeExchange::all_to_all(const LayerRouting& routing, ExchangeRecord* record) {
  ExchangeTimes t;
  if (record) {
    MOESIM_CHECK(record->unsettled_replays == 0, "exchange record overwritten with replays unsettled");
    record->has_volumes = record->has_dispatch = record->has_combine = false;
  }
  topology::CommResult& dispatch = dispatch_result_;
  if (aggregated_) {
    fabric_tokens_ = routing.traffic(margins_traffic_, *dispatch_options_.algorithm);
    // One low-latency message per token-expert pair (DeepEP LL sends each pair on its own).
    margins_traffic_.message_bytes = low_latency_ ? dispatch_options_.scale : 0.0;
    if (combine_mirrors_dispatch_) {
      // Only the timing now; the link loads are linear in the volumes, so a step's are costed
      // once from its summed volumes (book_step_links).
      aggregated_->timing(margins_traffic_, dispatch_options_, a2a_volumes_, dispatch);
      if (load_) step_volumes_.add(a2a_volumes_);
      if (load_ && record) {
        record->volumes.copy_volumes(a2a_volumes_);
        record->has_volumes = true;
      }
    } else {
      (*aggregated_)(margins_traffic_, dispatch_options_, a2a_volumes_, dispatch);
    }
  } else {
    routing.traffic(traffic_, low_latency_);
    dispatch = topology::all_to_all(cluster_, devices_, traffic_, dispatch_options_);
  }
  t.dispatch_ns = dispatch.duration_ns;
  if (combine_mirrors_dispatch_) {
    // Analytic fidelity on full-duplex links: the combine is the dispatch reversed, so every
    // link carries the same tokens in the other direction; only the bytes per token differ.
    t.combine_ns = dispatch.transfer_ns * (combine_options_.scale / dispatch_options_.scale) + dispatch.latency_ns +
                   dispatch.message_ns + combine_fixed_ns_;
    // Its link loads are the dispatch's, reversed and scaled: booked once per step.
  } else {
    topology::CommResult& combine = combine_result_;
    if (aggregated_)
      (*aggregated_)(margins_traffic_, combine_options_, a2a_volumes_, combine);
    else
      combine = topology::all_to_all(cluster_, devices_, traffic_, combine_options_);
    t.combine_ns = combine.duration_ns;
    if (load_) load_->add_links(combine);
    if (load_ && record) {
      record->combine = combine;
      record->has_combine = true;
    }
  }
  if (load_) {
    if (!combine_mirrors_dispatch_)
      load_->add_links(dispatch);
    else if (!aggregated_)
      step_links_.add(dispatch);
    if (record && (!combine_mirrors_dispatch_ || !aggregated_)) {
      record->dispatch = dispatch;
      record->has_dispatch = true;
    }
  }
  t.fabric_tokens = fabric_token_count();
  return t;
}

void MoeExchange::settle(ExchangeRecord& record) {
  const auto times = static_cast<double>(record.unsettled_replays);
  record.unsettled_replays = 0;
  if (!load_ || times == 0) return;
  // A mirrored combine books the dispatch's loads reversed, scaled to the combine's bytes.
  const double reversed = combine_options_.scale / dispatch_options_.scale;
  const auto book_mirrored = [&](const topology::CommResult& r) {
    const std::vector<int>* listed = r.links_listed ? &r.loaded_links : nullptr;
    load_->add_links(r.link_bytes, times, listed);
    load_->add_links_reversed(r.link_bytes, reverse_links_, reversed * times, listed);
  };
  // Volumes join the step's, costed once at the next book_step_links.
  if (record.has_volumes) step_volumes_.add(record.volumes, times);
  if (record.has_combine) load_->add_links(record.combine, times);
  if (record.has_dispatch) {
    if (combine_mirrors_dispatch_)
      book_mirrored(record.dispatch);
    else
      load_->add_links(record.dispatch, times);
  }
}

ExchangeTimes MoeExchange::gather_scatter(std::span<const std::int64_t> tokens) const {
  const std::int64_t widest = tokens.empty() ? 0 : *std::max_element(tokens.begin(), tokens.end());
  const double ranks = static_cast<double>(tokens.size());
  const double gathered = static_cast<double>(widest) * ranks;  // tokens every rank ends up holding
  ExchangeTimes t;
  t.dispatch_ns = tp_collective_ns(cluster_, devices_, topology::CollectiveKind::kAllGather,
                                   gathered * dispatch_options_.scale, *fidelity_);
  t.combine_ns = tp_collective_ns(cluster_, devices_, topology::CollectiveKind::kReduceScatter,
                                  gathered * combine_options_.scale, *fidelity_);
  t.fabric_tokens = gathered * (ranks - 1);  // each rank receives the other ranks' shares
  return t;
}

// Tokens the chosen algorithm puts on the fabric in the last draw: one per token-expert pair for
// low-latency kernels, one per destination rank otherwise (hierarchical forwarding over NVLink
// is not counted twice).
double MoeExchange::fabric_token_count() const {
  if (aggregated_) return fabric_tokens_;  // summed by LayerRouting::traffic
  return (low_latency_ ? traffic_.expert_bytes : traffic_.pair_bytes).total_bytes();
}

void MoeExchange::set_load_stats(LoadStats* stats) {
  load_ = stats;
  if (stats) reverse_links_ = reverse_links(cluster_);
}

void MoeExchange::book_step_links() {
  if (!load_) return;
  if (aggregated_ && !step_volumes_.up_send.empty()) {
    aggregated_->links(step_volumes_, dispatch_options_, step_result_);
    step_links_.add(step_result_);
    step_volumes_.reset(0, 0);  // empty until the next layer adds to it
  }
  if (step_links_.listed.empty()) return;
  load_->add_links(step_links_.bytes, 1.0, &step_links_.listed);
  load_->add_links_reversed(step_links_.bytes, reverse_links_, combine_options_.scale / dispatch_options_.scale,
                            &step_links_.listed);
  step_links_.clear();
}

void MoeExchange::LinkBytes::add(const topology::CommResult& r) {
  if (bytes.size() < r.link_bytes.size()) bytes.resize(r.link_bytes.size(), 0.0);
  const auto book = [&](std::size_t l) {
    if (r.link_bytes[l] == 0) return;
    if (bytes[l] == 0) listed.push_back(static_cast<int>(l));
    bytes[l] += r.link_bytes[l];
  };
  if (r.links_listed) {
    for (const int l : r.loaded_links) book(static_cast<std::size_t>(l));
  } else {
    for (std::size_t l = 0; l < r.link_bytes.size(); ++l) book(l);
  }
}

void MoeExchange::LinkBytes::clear() {
  for (const int l : listed) bytes[static_cast<std::size_t>(l)] = 0.0;
  listed.clear();
}

}  // namespace moesim::sim
