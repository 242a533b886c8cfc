// MoeExchange: what moving an MoE layer's tokens to their experts and back costs on the fabric,
// for one instance (stage) of a pool: the DISPATCH and COMBINE of the routing's last draw over the
// EP group, or, with moe.comm allgather-reducescatter (sim/moe_comm.h), an AllGather and a
// ReduceScatter of the ranks' tokens; and the link loads the exchanges leave, booked once a step.
//
// The all-to-all is costed by the pool's algorithm and fidelity (topology/all_to_all.h): on a
// preset fabric with the analytic fidelity from the draw's margins (topology/aggregated_all_to_all.h),
// otherwise from the full rank x rank matrix. With a closed-form fidelity the combine is the
// dispatch reversed on full-duplex links: every link carries the same tokens the other way at
// the combine's bytes per token, so only the dispatch is costed and the combine is scaled from
// it, and its link loads are the dispatch's reversed (booked at the end of the step from the
// step's summed volumes, as link loads are linear in them).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "models/model_spec.h"
#include "sim/deployment.h"
#include "sim/layer_routing.h"
#include "sim/load_stats.h"
#include "topology/a2a_closed_form.h"
#include "topology/aggregated_all_to_all.h"
#include "topology/all_to_all.h"
#include "topology/cluster.h"
#include "topology/traffic.h"

namespace moesim::sim {

// One layer's exchange: how long its two transfers take, and the tokens the dispatch put on the
// fabric (the combine returns as many, at the combine's bytes per token).
struct ExchangeTimes {
  double dispatch_ns = 0, combine_ns = 0;
  double fabric_tokens = 0;
};

// What one all_to_all booked in the load statistics, to book again when its draw is replayed
// (sim/route_memo.h).
struct ExchangeRecord {
  topology::A2aVolumes volumes;            // margins path with a mirrored combine: the dispatch's volumes
  topology::CommResult dispatch, combine;  // otherwise: the results whose link loads were booked
  bool has_volumes = false, has_dispatch = false, has_combine = false;
  // Replays whose link loads are not booked yet (MoeExchange::replay, settle). Link loads are
  // summed over the run and linear in the traffic, so a replayed record's loads are booked once,
  // times its replays, instead of once per replay.
  std::int64_t unsettled_replays = 0;
};

class MoeExchange {
 public:
  // `aggregated`: the routing draws margins (LayerRouting::aggregated()), costed by the
  // aggregated all-to-all.
  MoeExchange(const models::ModelSpec& model, const InstanceLayout& layout, const topology::Cluster& cluster,
              bool aggregated);

  // The dispatch and combine all-to-alls of `routing`'s last draw; adds their link loads to the
  // load statistics (set_load_stats), the mirrored combine's at book_step_links.
  // With `record`, also keeps what it booked there.
  ExchangeTimes all_to_all(const LayerRouting& routing, ExchangeRecord* record = nullptr);
  // Counts one more booking of the link loads `record` kept, as all_to_all made for the draw it
  // recorded; settle() books them.
  void replay(ExchangeRecord& record) const {
    if (load_) ++record.unsettled_replays;
  }
  // Books the link loads of `record`'s unsettled replays, times their number, and clears it: before
  // the record is overwritten and when the run ends (StepModel::settle_load_stats). Recorded
  // volumes join the step's, costed at the next book_step_links. The run's link loads equal those
  // booked one replay at a time up to rounding.
  void settle(ExchangeRecord& record);
  // AllGather + ReduceScatter: every rank receives every other rank's tokens, padded to the
  // largest share (`tokens`: per rank), and sends its partial outputs back the same way.
  ExchangeTimes gather_scatter(std::span<const std::int64_t> tokens) const;
  // Books the link loads of the step's mirrored combines (and, on the margins path, of its
  // dispatches) into the load statistics; call once when the step ends.
  void book_step_links();
  // Adds link loads to `stats` (null: none).
  void set_load_stats(LoadStats* stats);

  bool uses_gather_scatter() const { return gather_scatter_; }
  bool low_latency() const { return low_latency_; }
  // HBM passes per byte the chosen all-to-all moves (sender, receiver, forwarder).
  double hbm_passes() const { return hbm_passes_; }
  double dispatch_bytes_per_token() const { return dispatch_options_.scale; }
  double combine_bytes_per_token() const { return combine_options_.scale; }

 private:
  double fabric_token_count() const;

  const topology::Cluster& cluster_;
  std::vector<int> devices_;                   // [rank] the device it runs on
  const topology::NetworkFidelity* fidelity_;  // the pool's (gather-scatter collectives)
  topology::AllToAllOptions dispatch_options_, combine_options_;
  bool gather_scatter_ = false;            // AllGather + ReduceScatter instead of an all-to-all
  bool low_latency_ = false;               // DeepEP low-latency kernels: one message per pair
  bool combine_mirrors_dispatch_ = false;  // closed form: combine = dispatch reversed
  double hbm_passes_ = 2;
  double combine_fixed_ns_ = 0;                             // the combine kernel's fixed cost (topology/a2a_fixed.h)
  topology::AllToAllTraffic traffic_;                       // full-matrix path
  std::optional<topology::AggregatedAllToAll> aggregated_;  // margins path (analytic, preset fabric)
  topology::AggregatedTraffic margins_traffic_;
  topology::A2aVolumes a2a_volumes_;                       // margins path scratch, reused per layer
  topology::CommResult dispatch_result_, combine_result_;  // likewise (their link loads are cleared sparsely)
  double fabric_tokens_ = 0;                               // the last margins draw's tokens on the fabric
  LoadStats* load_ = nullptr;
  // A step's dispatch link loads, summed over its layers and booked (with the combine's, their
  // reverse) once when the step ends, instead of twice per layer; on the margins path, costed
  // once from the step's summed volumes.
  struct LinkBytes {
    std::vector<double> bytes;  // [link]
    std::vector<int> listed;    // links with bytes, each once
    void add(const topology::CommResult& r);
    void clear();
  };
  LinkBytes step_links_;
  topology::A2aVolumes step_volumes_;  // margins path: the step's dispatch volumes, summed over layers
  topology::CommResult step_result_;   // their link loads
  std::vector<int> reverse_links_;     // for a combine booked as the dispatch reversed
};

}  // namespace moesim::sim
