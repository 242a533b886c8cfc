#include "models/functional/trace_generation.h"

#include <string>

#include "models/functional/sampling.h"
#include "models/model_error.h"

namespace moesim::models::functional {
namespace {

RoutingTraceStep to_step(const ForwardResult& r) {
  RoutingTraceStep step;
  step.tokens = r.work.tokens;
  for (const Routing& layer : r.routing) {
    for (int id : layer.ids) step.ids.push_back(static_cast<std::uint16_t>(id));
    step.weights.insert(step.weights.end(), layer.weights.begin(), layer.weights.end());
  }
  return step;
}

}  // namespace

Generation generate_trace(Decoder& decoder, const std::vector<std::vector<int>>& prompts, const GenerationOptions& o) {
  const ModelSpec& spec = decoder.spec();
  if (spec.num_moe_layers() == 0) throw ModelError("model " + spec.name + " has no MoE layer: no routing to trace");
  if (spec.routed_experts > 65535)
    throw ModelError("model " + spec.name + ": a routing trace holds at most 65535 experts");
  if (o.max_new_tokens < 1) throw ModelError("max_new_tokens must be >= 1");
  Generation g;
  g.trace.header = {spec.num_moe_layers(), spec.routed_experts, spec.top_k, true, spec.name};
  std::vector<BatchEntry> batch;
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    if (prompts[i].empty()) throw ModelError("prompt " + std::to_string(i + 1) + " is empty");
    batch.push_back({decoder.add_sequence(), prompts[i]});
    g.prefill_tokens += static_cast<std::int64_t>(prompts[i].size());
  }
  g.outputs.resize(prompts.size());
  Sampler sampler(o.temperature, o.seed);
  for (int step = 0; step < o.max_new_tokens; ++step) {
    const ForwardResult r = decoder.forward(batch);
    g.trace.steps.push_back(to_step(r));
    if (step > 0) g.decode_tokens += r.work.tokens;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const int next = sampler.sample(r.logits.row(static_cast<Eigen::Index>(i)));
      g.outputs[i].push_back(next);
      batch[i].tokens = {next};
    }
  }
  return g;
}

}  // namespace moesim::models::functional
