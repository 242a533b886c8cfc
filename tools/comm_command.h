// What `moesim comm` computes, apart from its printing, so that the Python package offers the
// same estimate with the same flags, defaults and messages (docs/python.md).
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "sim/rank_costs.h"
#include "topology/comm.h"

namespace moesim::tools {

struct CommOptions {
  std::string cluster = "hgx";
  int nodes = 0;  // 0: as few as the EP degree needs
  std::string device;
  std::string op = "dispatch";
  std::string algo = "hierarchical";
  std::string fidelity = "analytic";
  std::string payload;  // default: fp8 dispatch, bf16 combine
  std::string routing = "uniform";
  std::string intra_node = "scale-up";  // or network (topology::AllToAllOptions::network_only)
  int ep = 8, tokens = 128, hidden = 7168, topk = 8, experts = 256;
  int groups = 0, top_groups = 4;
};

// The command's flags, their defaults and range checks, on `cmd`.
void add_comm_flags(CLI::App& cmd, CommOptions& o);

struct CommEstimate {
  int nodes = 0;
  int devices = 0;
  std::string payload;  // the dtype a token travels in
  double token_bytes = 0;
  topology::CommResult result;
  double per_rank_bytes = 0;  // what one rank sends (dispatch) or receives (combine)
  std::string bottleneck;     // the bottleneck link's name (result.bottleneck_link >= 0)
  double bottleneck_bytes = 0;
  double bottleneck_bytes_per_s = 0;
  std::optional<sim::LowLatencyKernel> kernel;  // low-latency with a --device: rank 0's kernel
};

// Throws topology::TopologyError with the command's message for a bad flag value.
CommEstimate estimate_comm(const CommOptions& o);

}  // namespace moesim::tools
