// Routing trace: the recorded expert choices of a model, a compact versioned binary file
// (docs/design.md §5), written by the functional decoder (models/functional/, `moesim trace
// generate`) and by tools, replayed by the `trace` routing model (workloads/). A step is one
// forward pass of a batch (a prefill of the prompts, or one decode token per sequence).
// All integers little-endian; no padding.
//
//   offset  type      field
//   0       char[8]   magic "MOESIMRT"
//   8       u32       version = 1
//   12      u32       moe_layers   (>= 1)
//   16      u32       experts      (1 .. 65535, routed experts per MoE layer)
//   20      u32       top_k        (1 .. experts)
//   24      u32       flags        bit 0: router weights present; other bits 0
//   28      u32       name_bytes   (<= 4096), then that many bytes: the model name (UTF-8, may be empty)
//   ..      u64       steps
//   then per step:    u32 tokens (tokens in the step's batch, <= 2^28)
//                     per MoE layer: tokens * top_k u16 expert ids, token-major (token 0's k ids,
//                     then token 1's ...), distinct within a token; then, if flags bit 0,
//                     tokens * top_k f32 router weights in the same order.
//
// The reader validates everything and throws ModelError "file: byte N: ..." naming the step
// and layer for a truncated or malformed file; it never reads past what the header promises.
#pragma once

#include <cstdint>
#include <istream>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace moesim::models {

inline constexpr std::uint32_t kRoutingTraceVersion = 1;

struct RoutingTraceHeader {
  int moe_layers = 0;
  int experts = 0;
  int top_k = 0;
  bool has_weights = false;
  std::string model;
};

struct RoutingTraceStep {
  std::int64_t tokens = 0;
  std::vector<std::uint16_t> ids;  // [layer][token][k]
  std::vector<float> weights;      // same layout; empty without weights
};

struct RoutingTrace {
  RoutingTraceHeader header;
  std::vector<RoutingTraceStep> steps;
  // The ids of one layer of one step: tokens × top_k, token-major.
  std::span<const std::uint16_t> layer_ids(std::size_t step, int layer) const;
  std::span<const float> layer_weights(std::size_t step, int layer) const;  // empty without weights
};

// Throws ModelError if the trace is inconsistent with its header.
void write_routing_trace(std::ostream& out, const RoutingTrace& trace);
void write_routing_trace(const std::string& path, const RoutingTrace& trace);  // ModelError if unwritable
RoutingTrace read_routing_trace(std::istream& in, const std::string& name);
RoutingTrace read_routing_trace(const std::string& path);

}  // namespace moesim::models
