// Exact one-line messages for the errors of the cluster, placement/comm, routing and workload keys.
#include <gtest/gtest.h>

#include "scenarios/loader.h"
#include "sim/moe_comm.h"
#include "sim/placement.h"
#include "tests/scenarios/scenario_test_support.h"
#include "topology/all_to_all.h"
#include "topology/fidelity.h"
#include "workloads/prefix_hit.h"

namespace moesim::scenarios {
namespace {

using testing::kMinimal;
using testing::load_error;
using testing::valid_names;

using testing::with;

// DeepSeek-V3 on `nodes` HGX nodes, one colocated pool of `ranks` ranks, then `moe`.
std::string dsv3(int nodes, int ranks, std::string_view moe) {
  return "model: deepseek-v3\nhardware: h800\ncluster: {nodes: " + std::to_string(nodes) +
         "}\ndeployment:\n  colocated:\n    ranks: " + std::to_string(ranks) + "\n    moe: " + std::string(moe) + "\n";
}

TEST(ScenarioSectionErrors, ClusterKeys) {
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h800\ncluster: {nodes: 1, spine: 2}\n"),
            "scn.yaml:3:21: cluster.spine: unknown key 'spine'; did you mean 'spines'?");
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h800\ncluster: {nodes: 1, oversubscription: 0.5}\n"),
            "scn.yaml:3:39: cluster.oversubscription: expected a number >= 1, got 0.5");
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h800\ncluster: {nodes: 1, rails: -1}\n"),
            "scn.yaml:3:28: cluster.rails: expected an integer >= 0, got -1");
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h800\ncluster: {nodes: 1, nic_messages_per_s: 0}\n"),
            "scn.yaml:3:41: cluster.nic_messages_per_s: expected a rate > 0, got '0'");
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h800\ncluster: {preset: cloudmatrix384, nodes: 1, "
                       "devices_per_board: 5}\n"),
            "scn.yaml:3:45: cluster.devices_per_board: devices_per_board 5 does not divide devices_per_node 384");
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h800\ncluster: {preset: cloudmatrix384, nodes: 1, "
                       "devices_per_node: 12}\n"),
            "scn.yaml:3:45: cluster.devices_per_node: devices_per_board 8 does not divide devices_per_node 12");
}

TEST(ScenarioSectionErrors, BadPlacementCommAndFidelityNames) {
  EXPECT_EQ(load_error(with("    moe: {placement: eplbb}\n")),
            "scn.yaml:7:22: deployment.colocated.moe.placement: unknown placement policy 'eplbb'; did you mean "
            "'eplb'? (valid: " +
                valid_names(sim::placement_policies()) + ")");
  EXPECT_EQ(load_error(with("    moe: {replica_split: near}\n")),
            "scn.yaml:7:26: deployment.colocated.moe.replica_split: unknown replica split 'near' (valid: " +
                valid_names(sim::replica_splits()) + ")");
  EXPECT_EQ(load_error(with("    moe: {comm: low-latancy}\n")),
            "scn.yaml:7:17: deployment.colocated.moe.comm: unknown all-to-all algorithm 'low-latancy'; did you "
            "mean 'low-latency'? (valid: " +
                valid_names(sim::moe_comm_algorithms()) + ")");
  EXPECT_EQ(load_error(with("    moe: {fidelity: packet}\n")),
            "scn.yaml:7:21: deployment.colocated.moe.fidelity: unknown network fidelity 'packet' (valid: " +
                valid_names(topology::network_fidelities()) + ")");
  EXPECT_EQ(load_error(with("    moe: {ll_intra_node: nvswitch}\n")),
            "scn.yaml:7:26: deployment.colocated.moe.ll_intra_node: unknown intra-node transport 'nvswitch' (valid: "
            "scale-up, network)");
  EXPECT_EQ(load_error(with("    moe: {comm: low-latency, ll_intra_node: network}\n")), "<no error>");
  EXPECT_EQ(load_error(with("    moe: {redundant: 8}\n")),
            "scn.yaml:7:11: deployment.colocated.moe.redundant: unknown key 'redundant'; did you mean "
            "'redundant_experts'?");
}

TEST(ScenarioSectionErrors, ExpertSlotsMustDivideOverEp) {
  // 256 experts over EP72 need redundant slots; 256 + 16 does not divide either.
  EXPECT_EQ(load_error("model: deepseek-v3\nhardware: gb200\ncluster: {preset: nvl72, nodes: 1}\n"
                       "deployment: {colocated: {ranks: 72}}\n"),
            "scn.yaml:4:26: deployment.colocated.ranks: 256 routed experts do not divide over ep 72");
  EXPECT_EQ(load_error("model: deepseek-v3\nhardware: gb200\ncluster: {preset: nvl72, nodes: 1}\n"
                       "deployment: {colocated: {ranks: 72, moe: {placement: eplb, redundant_experts: 16}}}\n"),
            "scn.yaml:4:60: deployment.colocated.moe.redundant_experts: 272 expert slots (256 + 16 redundant) do not "
            "divide over ep 72");
}

TEST(ScenarioSectionErrors, RedundantExpertsNeedAnEplbPolicy) {
  EXPECT_EQ(load_error(with("    moe: {redundant_experts: 8}\n")),
            "scn.yaml:7:11: deployment.colocated.moe.redundant_experts: placement 'contiguous': has no redundant "
            "slots (use eplb)");
  EXPECT_EQ(load_error(with("    moe: {placement: striped, redundant_experts: 8}\n")),
            "scn.yaml:7:31: deployment.colocated.moe.redundant_experts: placement 'striped': has no redundant slots "
            "(use eplb)");
  EXPECT_EQ(load_error(with("    moe: {rebalance_interval: 10s}\n")),
            "scn.yaml:7:11: deployment.colocated.moe.rebalance_interval: rebalancing needs an eplb placement; "
            "placement 'contiguous' does not depend on load");
}

TEST(ScenarioSectionErrors, PlacementLibraryChecksArePositioned) {
  // eplb-hierarchical packs DeepSeek-V3's 8 expert groups onto the pool's 6 nodes.
  EXPECT_EQ(load_error(dsv3(6, 48, "{placement: eplb-hierarchical, redundant_experts: 32}")),
            "scn.yaml:7:11: deployment.colocated.moe.placement: placement 'eplb-hierarchical': 8 expert groups do "
            "not split over 6 nodes");
}

TEST(ScenarioSectionErrors, RoutingParameters) {
  EXPECT_EQ(load_error(with("routing: {model: dirichlet-drift, drift_sigam: 1}\n")),
            "scn.yaml:7:35: routing.drift_sigam: unknown key 'drift_sigam'; did you mean 'drift_sigma'?");
  EXPECT_EQ(load_error(with("routing: {model: zipf, s: 11}\n")),
            "scn.yaml:7:27: routing.s: expected a number in [0, 10], got 11");
  EXPECT_EQ(load_error(with("routing: {model: hot-set, hot_experts: 20}\n")),
            "scn.yaml:7:40: routing.hot_experts: expected an integer in [1, 16], got 20");
  EXPECT_EQ(load_error(with("routing: {model: hot-set, hot_fraction: 1.5}\n")),
            "scn.yaml:7:41: routing.hot_fraction: expected a number in [0, 1], got 1.5");
  EXPECT_EQ(load_error(with("routing: {alpha: 0}\n")), "scn.yaml:7:18: routing.alpha: expected a number > 0, got '0'");
  EXPECT_EQ(load_error(with("routing: {drift_interval_steps: 0}\n")),
            "scn.yaml:7:33: routing.drift_interval_steps: expected an integer >= 1, got 0");
  EXPECT_EQ(load_error(with("routing: {model: group-limited, base: group-limited}\n")),
            "scn.yaml:7:39: routing.base: unknown base routing model 'group-limited' (valid: uniform, zipf, hot-set, "
            "dirichlet-drift, layered-lognormal, trace)");
  EXPECT_EQ(load_error(with("routing: {model: trace}\n")),
            "scn.yaml:7:10: routing: routing model 'trace' needs trace_path");
  EXPECT_EQ(load_error(with("routing: {counts: exakt}\n")),
            "scn.yaml:7:19: routing.counts: unknown count method 'exakt'; did you mean 'exact'? (valid: fast, exact)");
  EXPECT_EQ(load_error(with("routing: {reuse_draws: 2000}\n")),
            "scn.yaml:7:24: routing.reuse_draws: expected an integer in [0, 1024], got 2000");
  EXPECT_EQ(load_error(with("routing: {reuse_draw: 8}\n")),
            "scn.yaml:7:11: routing.reuse_draw: unknown key 'reuse_draw'; did you mean 'reuse_draws'?");
  EXPECT_EQ(load_error(with("routing: {share_draws: 4}\n")),
            "scn.yaml:7:24: routing.share_draws: expected true or false, got '4'");
}

TEST(ScenarioSectionErrors, GroupLimitMustSplitTheExperts) {
  EXPECT_EQ(load_error(with("routing: {group_limit: {groups: 3}}\n")),
            "scn.yaml:7:33: routing.group_limit.groups: 16 routed experts do not split into 3 equal groups");
  EXPECT_EQ(load_error(with("routing: {group_limit: {groups: 4, top_groups: 5}}\n")),
            "scn.yaml:7:48: routing.group_limit.top_groups: top_groups 5 exceeds groups 4");
  EXPECT_EQ(load_error(with("routing: {group_limit: {groups: 4, top_group: 2}}\n")),
            "scn.yaml:7:36: routing.group_limit.top_group: unknown key 'top_group'; did you mean 'top_groups'?");
  EXPECT_EQ(load_error(with("routing: {group_limit: {enabled: maybe}}\n")),
            "scn.yaml:7:34: routing.group_limit.enabled: expected true or false, got 'maybe'");
}

TEST(ScenarioSectionErrors, ArrivalParameters) {
  EXPECT_EQ(load_error(with("workload: {arrivals: {process: gamma, cv: 0}}\n")),
            "scn.yaml:7:43: workload.arrivals.cv: expected a number > 0, got '0'");
  EXPECT_EQ(load_error(with("workload: {arrivals: {process: closed-loop, concurrency: 0}}\n")),
            "scn.yaml:7:58: workload.arrivals.concurrency: expected an integer >= 1, got 0");
  EXPECT_EQ(load_error(with("workload: {arrivals: {think_time: 5}}\n")),
            "scn.yaml:7:35: workload.arrivals.think_time: expected a duration with a unit (ns, us, ms, s, min, h), "
            "got '5'");
  EXPECT_EQ(load_error(with("workload: {arrivals: {time_scale: -1}}\n")),
            "scn.yaml:7:35: workload.arrivals.time_scale: expected a number > 0, got '-1'");
  EXPECT_EQ(load_error(with("workload: {arrivals: {trace_format: parquet}}\n")),
            "scn.yaml:7:37: workload.arrivals.trace_format: unknown trace format 'parquet' (valid: auto, csv, jsonl)");
  EXPECT_EQ(load_error(with("workload: {arrivals: {process: trace}}\n")),
            "scn.yaml:7:22: workload.arrivals: process 'trace' needs trace_path");
  EXPECT_EQ(load_error(with("workload: {arrivals: {proces: gamma}}\n")),
            "scn.yaml:7:23: workload.arrivals.proces: unknown key 'proces'; did you mean 'process'?");
}

TEST(ScenarioSectionErrors, LengthParameters) {
  EXPECT_EQ(load_error(with("workload: {input_tokens: {dist: uniform, min: 10}}\n")),
            "scn.yaml:7:26: workload.input_tokens: dist 'uniform' needs max (and min, default 1)");
  EXPECT_EQ(load_error(with("workload: {input_tokens: {dist: uniform, min: 10, max: 5}}\n")),
            "scn.yaml:7:56: workload.input_tokens.max: expected max >= min 10, got 5");
  EXPECT_EQ(load_error(with("workload: {output_tokens: {dist: lognormal, sigma: 0.5}}\n")),
            "scn.yaml:7:27: workload.output_tokens: dist 'lognormal' needs mean (and sigma)");
  EXPECT_EQ(load_error(with("workload: {output_tokens: {dist: lognormal, mean: 500, sigma: 11}}\n")),
            "scn.yaml:7:63: workload.output_tokens.sigma: expected a number in [0, 10], got 11");
  EXPECT_EQ(load_error(with("workload: {input_tokens: {dist: normal, mean: 0.5}}\n")),
            "scn.yaml:7:47: workload.input_tokens.mean: expected a number in [1, 33554432], got 0.5");
  EXPECT_EQ(load_error(with("workload: {input_tokens: {dist: empirical}}\n")),
            "scn.yaml:7:26: workload.input_tokens: dist 'empirical' needs path");
  EXPECT_EQ(load_error(with("workload: {input_tokens: {dist: normal, mean: 100, stdev: 5}}\n")),
            "scn.yaml:7:52: workload.input_tokens.stdev: unknown key 'stdev'; did you mean 'stddev'?");
}

TEST(ScenarioSectionErrors, PrefixHitParameters) {
  EXPECT_EQ(load_error(with("workload: {prefix_hit: 1.5}\n")),
            "scn.yaml:7:24: workload.prefix_hit: expected a number in [0, 1], got 1.5");
  EXPECT_EQ(load_error(with("workload: {prefix_hit: {dist: uniform, min: 0.6, max: 0.4}}\n")),
            "scn.yaml:7:55: workload.prefix_hit.max: expected max >= min 0.6, got 0.4");
  EXPECT_EQ(load_error(with("workload: {prefix_hit: {dist: beta, mean: 1}}\n")),
            "scn.yaml:7:43: workload.prefix_hit.mean: expected a number in (0, 1), got 1");
  EXPECT_EQ(load_error(with("workload: {prefix_hit: {dist: beta}}\n")),
            "scn.yaml:7:24: workload.prefix_hit: dist 'beta' needs mean (and concentration)");
  EXPECT_EQ(load_error(with("workload: {prefix_hit: {dist: trace}}\n")),
            "scn.yaml:7:12: workload.prefix_hit: prefix hit 'trace' needs arrivals process 'trace' (the hits come "
            "from the trace's hash_ids)");
  EXPECT_EQ(load_error(with("workload: {prefix_hit: {dist: zipf}}\n")),
            "scn.yaml:7:31: workload.prefix_hit.dist: unknown prefix hit distribution 'zipf' (valid: " +
                valid_names(workloads::prefix_hit_distributions()) + ")");
}

}  // namespace
}  // namespace moesim::scenarios
