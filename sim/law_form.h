// LawForm: what the law of one MoE layer's routing draw depends on, up to relabelling slots within
// a rank (sim/route_memo.h, pools shared by layers; RoutingConfig::share_draws).
//
// A draw's counts (workloads/routing_sampler.h) follow from each slot's pair probability for a
// source of each class — the popularity of the expert it holds times its replica share — the rank
// that holds it, the sources' classes and the ranks' nodes. Within a rank, slots are exchangeable:
// everything a rank sees (the pairs it receives, its grouped GEMM, a function of its slots' counts
// in any order, the fabric's traffic) has the same law whichever of its slots holds which
// probability. So two layers whose ranks hold the same multisets of slot probabilities draw one
// law, their slot and expert counts relabelled: EPLB placing popularities that permute one another
// (zipf and hot-set permute one popularity vector per layer) gives every layer the same form.
//
// The law's key lists the classes, the ranks' nodes and, rank by rank, its slots' probabilities
// sorted; two layers have one law when their keys are equal. The form's `order[c]` is the layer's slot at
// canonical position c: a draw kept in canonical order gives any layer of the form its slot and
// expert counts. Group-limited routing picks experts by their groups (contiguous expert ids), so
// its forms keep every slot in place with its expert's id and the whole popularity: only layers
// with the same popularity and placement share a form.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "workloads/routing_targets.h"

namespace moesim::sim {

struct LawForm {
  std::vector<std::uint32_t> order;  // [canonical position] the layer's slot
  std::vector<std::int32_t> expert;  // [canonical position] the expert the layer's slot holds
};

// The form of a layer placed as `t` with expert popularity `probs` (one per expert), and its law's
// key; `keep_experts`: expert identities matter (group-limited routing).
void law_form(const workloads::RoutingTargets& t, std::span<const double> probs, bool keep_experts, LawForm& out,
              std::vector<double>& key);

// The per-expert counts of a draw kept in canonical order (`canonical`, one per slot), for the
// layer of `form`: out[e] = the pairs of e's slots (out is overwritten, one entry per expert).
void expert_counts_of(const LawForm& form, std::span<const std::int64_t> canonical, std::span<std::int64_t> out);

}  // namespace moesim::sim
