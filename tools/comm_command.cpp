// `moesim comm`: kernel-level what-if for one MoE dispatch or combine on a cluster preset.
// Builds the expected traffic of uniformly (optionally node-limited) routed tokens
// (topology/moe_traffic.h), sizes a token with models::dispatch_bytes_per_token /
// combine_bytes_per_token, and prints the all-to-all's time, effective bandwidth per rank and
// bottleneck link from topology::all_to_all at the chosen algorithm and fidelity. For
// low-latency kernels on a --device it adds their send and receive kernels
// (sim::low_latency_phases), the whole kernel as DeepEP times it without the receive hook.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <numeric>
#include <optional>
#include <string>

#include "calibration/cost_model.h"
#include "calibration/hardware_profile.h"
#include "models/dtype.h"
#include "models/layer_ops.h"
#include "models/model_spec.h"
#include "sim/rank_costs.h"
#include "tools/comm_command.h"
#include "tools/commands.h"
#include "topology/all_to_all.h"
#include "topology/moe_traffic.h"

namespace moesim::tools {
namespace {

int run_comm(const CommOptions& o) {
  const CommEstimate e = estimate_comm(o);
  const topology::CommResult& r = e.result;
  const double per_rank = e.per_rank_bytes;
  std::printf("%s %s on %s x%d (%d devices), EP%d, %d tokens/rank, top-%d of %d experts, %s %.0f B/token, %s routing\n",
              o.op.c_str(), o.algo.c_str(), o.cluster.c_str(), e.nodes, e.devices, o.ep, o.tokens, o.topk, o.experts,
              e.payload.c_str(), e.token_bytes, o.routing.c_str());
  std::printf("  time            %10.1f us  (transfer %.1f, latency %.1f, messages %.1f, fixed %.1f; fidelity %s)\n",
              r.duration_ns / 1e3, r.transfer_ns / 1e3, r.latency_ns / 1e3, r.message_ns / 1e3, r.fixed_ns / 1e3,
              o.fidelity.c_str());
  std::printf("  per rank        %10.2f MB, effective %.1f GB/s\n", per_rank / 1e6,
              r.duration_ns > 0 ? per_rank / r.duration_ns : 0.0);
  if (r.bottleneck_link >= 0) {
    std::printf("  bottleneck      %s, %.2f MB at %.1f GB/s\n", e.bottleneck.c_str(), e.bottleneck_bytes / 1e6,
                e.bottleneck_bytes_per_s / 1e9);
  } else {
    std::printf("  bottleneck      none (no traffic leaves a rank)\n");
  }
  if (e.kernel) {
    const sim::LowLatencyKernel& k = *e.kernel;
    std::printf("  kernel          %10.1f us  (send %.1f + all-to-all %.1f + receive %.1f, without the receive hook)\n",
                k.total() / 1e3, k.send / 1e3, k.transfer / 1e3, k.receive / 1e3);
  }
  return 0;
}

}  // namespace

CommEstimate estimate_comm(const CommOptions& o) {
  using topology::TopologyError;
  topology::ClusterConfig cfg = topology::cluster_preset_defaults(o.cluster);
  std::optional<calibration::HardwareProfile> hw;
  if (!o.device.empty()) {
    hw = calibration::find_hardware_preset(o.device);
    if (!hw) throw TopologyError("unknown device '" + o.device + "' (see 'moesim list')");
    cfg.scaleup_bytes_per_s = hw->scaleup_bytes_per_s;
    cfg.nic_bytes_per_s = hw->nic_bytes_per_s;
  }
  if (o.ep < 1) throw TopologyError("--ep must be at least 1");
  cfg.nodes = o.nodes > 0 ? o.nodes : (o.ep + cfg.devices_per_node - 1) / cfg.devices_per_node;
  const topology::Cluster cluster(cfg);
  if (o.ep > cluster.num_devices())
    throw TopologyError("--ep " + std::to_string(o.ep) + " does not fit on " + std::to_string(cluster.num_devices()) +
                        " devices (" + std::to_string(cfg.nodes) + " x " + std::to_string(cfg.devices_per_node) + ")");
  if (o.op != "dispatch" && o.op != "combine") throw TopologyError("--op must be dispatch or combine");
  if (o.routing != "uniform" && o.routing != "node-limited")
    throw TopologyError("--routing must be uniform or node-limited");
  if (o.intra_node != "scale-up" && o.intra_node != "network")
    throw TopologyError("--intra-node must be scale-up or network");
  std::vector<int> devices(static_cast<std::size_t>(o.ep));
  std::iota(devices.begin(), devices.end(), 0);
  topology::MoeRouting routing{o.tokens, o.experts, o.topk, 0, 0};
  if (o.routing == "node-limited" || o.groups > 0) {
    routing.groups = o.groups > 0 ? o.groups : cluster.node_of(o.ep - 1) + 1;
    routing.top_groups = std::min(o.top_groups, routing.groups);
  }
  const topology::AllToAllTraffic traffic = topology::expected_moe_traffic(cluster, devices, routing);

  models::ModelSpec m;
  m.hidden = o.hidden;
  m.top_k = o.topk;
  const std::string payload = o.payload.empty() ? (o.op == "dispatch" ? "fp8" : "bf16") : o.payload;
  const auto dtype = models::parse_dtype(payload);
  if (!dtype) throw TopologyError("unknown --payload '" + payload + "' (fp8, bf16, fp16, fp32)");
  m.dispatch_dtype = m.combine_dtype = *dtype;
  const double token_bytes =
      o.op == "dispatch" ? models::dispatch_bytes_per_token(m) : models::combine_bytes_per_token(m);

  topology::AllToAllOptions a;
  a.algorithm = &topology::find_all_to_all(o.algo);
  a.fidelity = &topology::find_fidelity(o.fidelity);
  a.direction = o.op == "dispatch" ? topology::Direction::kDispatch : topology::Direction::kCombine;
  a.scale = token_bytes;
  a.network_only = o.intra_node == "network";
  topology::AllToAllTraffic t = traffic;
  t.message_bytes = token_bytes;
  const topology::CommResult r = topology::all_to_all(cluster, devices, t, a);

  // Per-rank bytes moved: what one rank sends (dispatch) or receives (combine), each token once
  // per destination rank, excluding itself.
  double per_rank = 0;
  for (int d = 1; d < o.ep; ++d) per_rank += traffic.pair_bytes.at(0, d) * token_bytes;

  CommEstimate e;
  e.nodes = cfg.nodes;
  e.devices = cluster.num_devices();
  e.payload = payload;
  e.token_bytes = token_bytes;
  e.per_rank_bytes = per_rank;
  if (r.bottleneck_link >= 0) {
    const int l = r.bottleneck_link;
    e.bottleneck = cluster.link_name(l);
    e.bottleneck_bytes = r.link_bytes[static_cast<std::size_t>(l)];
    e.bottleneck_bytes_per_s = cluster.link_capacity(l);
  }
  if (a.algorithm->low_latency() && hw) {
    // Rank 0's kernels (uniform traffic: every rank alike): a dispatch packs its tokens and
    // unpacks the pairs it receives, a combine sends back the pairs it received and reduces
    // its tokens' returns.
    const auto cost = calibration::make_cost_model(calibration::CostModelKind::kFitted, *hw);
    const auto p = sim::low_latency_phases(m, *cost, o.tokens, std::llround(traffic.expert_bytes.received(0)),
                                           models::dispatch_bytes_per_token(m), models::combine_bytes_per_token(m));
    e.kernel = sim::low_latency_kernel(p, a.direction, r.duration_ns);
  }
  e.result = r;
  return e;
}

void add_comm_flags(CLI::App& cmd, CommOptions& o) {
  cmd.add_option("--cluster", o.cluster, "Cluster preset (hgx, nvl72, xgmi, cloudmatrix384, generic)");
  cmd.add_option("--nodes", o.nodes, "Nodes (scale-up domains); default: as many as --ep needs")
      ->check(CLI::Range(1, 1 << 16));
  cmd.add_option("--device", o.device, "Hardware preset for the link line rates (e.g. h800)");
  cmd.add_option("--op", o.op, "dispatch or combine");
  cmd.add_option("--algo", o.algo, "direct, hierarchical or low-latency");
  cmd.add_option("--fidelity", o.fidelity, "analytic or flow");
  cmd.add_option("--intra-node", o.intra_node,
                 "How pairs inside a scale-up domain travel: scale-up (default) or network (through the NICs, "
                 "as DeepEP low-latency kernels without NVLink traffic)");
  cmd.add_option("--ep", o.ep, "Expert-parallel ranks")->check(CLI::Range(1, 1 << 20));
  cmd.add_option("--tokens", o.tokens, "Tokens per rank")->check(CLI::Range(1, 1 << 24));
  cmd.add_option("--hidden", o.hidden, "Hidden size")->check(CLI::Range(1, 1 << 20));
  cmd.add_option("--topk", o.topk, "Experts per token")->check(CLI::Range(1, 1 << 16));
  cmd.add_option("--experts", o.experts, "Routed experts per layer")->check(CLI::Range(1, 1 << 16));
  cmd.add_option("--payload", o.payload, "fp8 (dispatch default) or bf16 (combine default)");
  cmd.add_option("--routing", o.routing, "uniform, or node-limited (groups = nodes, --top-groups)");
  cmd.add_option("--groups", o.groups, "Expert groups for group-limited routing")->check(CLI::Range(1, 1 << 16));
  cmd.add_option("--top-groups", o.top_groups, "Groups a token may use (default 4)")->check(CLI::Range(1, 1 << 16));
}

Command add_comm_command(CLI::App& app) {
  auto o = std::make_shared<CommOptions>();
  auto* cmd = app.add_subcommand("comm", "Time one MoE dispatch or combine all-to-all on a cluster preset");
  add_comm_flags(*cmd, *o);
  return {cmd, [o] { return run_comm(*o); }};
}

}  // namespace moesim::tools
