// trace: replays a routing-trace file (models/routing_trace.h). Step `step` of the simulation uses trace
// step `step mod steps`; MoE layer l uses trace layer l (the trace must cover the model's MoE
// layers). expert_distribution gives that step's empirical expert frequencies; trace_tokens gives
// the recorded per-token choices, which the RoutingSampler replays token by token.
#include <algorithm>
#include <string>

#include "models/model_error.h"
#include "models/routing_trace.h"
#include "workloads/routing_factories.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

using models::RoutingTrace;

class TraceRouting final : public RoutingModel {
 public:
  explicit TraceRouting(RoutingTrace trace) : trace_(std::move(trace)) {}

  void expert_distribution(int moe_layer, std::int64_t step, std::span<double> probs) const override {
    std::fill(probs.begin(), probs.end(), 0.0);
    const auto ids = trace_.layer_ids(step_index(step), layer_index(moe_layer));
    if (ids.empty()) {
      std::fill(probs.begin(), probs.end(), 1.0 / static_cast<double>(probs.size()));
      return;
    }
    for (auto id : ids) probs[id] += 1.0;
    for (auto& p : probs) p /= static_cast<double>(ids.size());
  }
  bool is_static() const override { return false; }
  bool is_step_invariant() const override { return trace_.steps.size() == 1; }
  std::optional<TraceTokens> trace_tokens(int moe_layer, std::int64_t step) const override {
    return TraceTokens{trace_.layer_ids(step_index(step), layer_index(moe_layer)), trace_.header.top_k};
  }

 private:
  std::size_t step_index(std::int64_t step) const {
    return static_cast<std::size_t>(std::max<std::int64_t>(0, step)) % trace_.steps.size();
  }
  int layer_index(int moe_layer) const {
    if (moe_layer < 0 || moe_layer >= trace_.header.moe_layers)
      throw WorkloadError("routing trace has " + std::to_string(trace_.header.moe_layers) + " MoE layers; layer " +
                          std::to_string(moe_layer) + " requested");
    return moe_layer;
  }
  RoutingTrace trace_;
};

}  // namespace

std::unique_ptr<RoutingModel> make_trace_routing(const std::string& path, const RoutingShape& shape) {
  if (path.empty()) throw WorkloadError("trace routing needs trace_path");
  // The file format belongs to models/; a bad file is bad workload input here.
  RoutingTrace trace;
  try {
    trace = models::read_routing_trace(path);
  } catch (const models::ModelError& e) {
    throw WorkloadError(e.what(), e.position());
  }
  const auto& h = trace.header;
  const auto mismatch = [&](const std::string& what, int file, int model) {
    throw WorkloadError(path + ": routing trace has " + std::to_string(file) + " " + what + ", the model " +
                        std::to_string(model));
  };
  if (h.experts != shape.experts) mismatch("experts", h.experts, shape.experts);
  if (shape.moe_layers > 0 && h.moe_layers < shape.moe_layers) mismatch("MoE layers", h.moe_layers, shape.moe_layers);
  if (shape.top_k > 1 && h.top_k != shape.top_k) mismatch("top_k", h.top_k, shape.top_k);
  if (trace.steps.empty()) throw WorkloadError(path + ": routing trace has no steps");
  return std::make_unique<TraceRouting>(std::move(trace));
}

}  // namespace moesim::workloads
