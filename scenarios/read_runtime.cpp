// `deployment.<pool>.runtime:` -> sim::RuntimeConfig (docs/runtime.md): a preset, then any of its
// fields overridden.
#include <algorithm>

#include "scenarios/read_sections.h"
#include "sim/runtime.h"

namespace moesim::scenarios {

const std::vector<std::string_view> kRuntimeKeys = {"preset",           "cuda_graph_batch_sizes", "cuda_graph_padding",
                                                    "eager_launch",     "graph_launch",           "host_step",
                                                    "host_per_request", "overlap_scheduler"};

sim::RuntimeConfig read_runtime(const MapReader& m) {
  std::string preset = "ideal";
  if (auto f = m.get("preset")) preset = as_choice(*f, "runtime preset", names_of(sim::runtime_presets()));
  sim::RuntimeConfig r = *sim::runtime_preset(preset);
  const auto others = {"cuda_graph_batch_sizes", "cuda_graph_padding", "eager_launch", "graph_launch", "host_step",
                       "host_per_request",       "overlap_scheduler"};
  for (const char* key : others)
    if (auto f = m.get(key); f && r.graph_everything)
      f->fail_at_key(
          "runtime 'ideal' is the kernels alone and takes no settings; choose an engine preset "
          "(sglang, vllm, trtllm)");
  if (auto f = m.get("cuda_graph_batch_sizes")) {
    if (f->node->kind != YamlNode::Kind::kList)
      f->fail("expected a list of batch sizes such as [1, 2, 4, 8], got " + describe(*f->node));
    r.graph_batch_sizes.clear();
    for (std::size_t i = 0; i < f->node->items.size(); ++i)
      r.graph_batch_sizes.push_back(
          as_int(Field{&f->node->items[i], f->key_loc, f->path + "[" + std::to_string(i) + "]"}, 1, 1 << 20));
    std::sort(r.graph_batch_sizes.begin(), r.graph_batch_sizes.end());
    r.graph_batch_sizes.erase(std::unique(r.graph_batch_sizes.begin(), r.graph_batch_sizes.end()),
                              r.graph_batch_sizes.end());
  }
  if (auto f = m.get("cuda_graph_padding")) r.graph_padding = as_bool(*f);
  if (auto f = m.get("eager_launch")) r.eager_launch_ns = as_duration_ns(*f);
  if (auto f = m.get("graph_launch")) r.graph_launch_ns = as_duration_ns(*f);
  if (auto f = m.get("host_step")) r.host_step_ns = as_duration_ns(*f);
  if (auto f = m.get("host_per_request")) r.host_per_request_ns = as_duration_ns(*f);
  if (auto f = m.get("overlap_scheduler")) r.overlap_scheduler = as_bool(*f);
  return r;
}

}  // namespace moesim::scenarios
